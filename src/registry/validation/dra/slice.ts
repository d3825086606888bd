// ResourceSlice validation, as upstream's pkg/apis/resource/validation: the driver and its pool (name,
// resourceSliceCount, generation), exactly one way of saying which nodes reach the pool, devices (unique DNS-label
// names, at most 128, or 64 when any has taints or consumes counters) with their attributes, capacities, taints and
// counter consumption, and the pool's shared counter sets. Driver, pool name and node name are immutable.
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong } from '../../../machinery/errors.js';
import { isDns1123Subdomain } from '../../../machinery/names.js';
import { isRecord, type KObject } from '../../../machinery/types.js';
import { arr, immutable, rec, str, type Errs } from '../common.js';
import { validateNodeSelector } from '../affinity.js';
import { draLimits } from '../../../cel/dra.js';
import {
  dnsLabelErrors, driverNameErrors, eachEntry, eachUnique, limits, poolNameErrors, qualifiedAttributeNameErrors, requiredLabel, taintErrors,
} from './common.js';

// semver.org 2.0.0: numeric core, optional pre-release and build identifiers.
const semverRe = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/;

const set = (v: unknown) => v !== undefined && v !== null;
const nodeNameErrors = (name: string, path: string): Errs => isDns1123Subdomain(name).map((m) => fieldInvalid(path, name, m));

function attributeErrors(value: unknown, path: string): Errs {
  const a = rec(value);
  const errs: Errs = [];
  const kinds = ['bool', 'int', 'string', 'version'].filter((k) => set(a[k]));
  for (const k of ['string', 'version']) {
    const s = a[k];
    if (typeof s !== 'string') continue;
    if (k === 'version' && !semverRe.test(s)) errs.push(fieldInvalid(`${path}.version`, s, 'must be a string compatible with semver.org spec 2.0.0'));
    if (s.length > draLimits.maxAttributeValueLength) errs.push(fieldTooLong(`${path}.${k}`, s, draLimits.maxAttributeValueLength));
  }
  if (kinds.length !== 1) errs.push(fieldInvalid(path, kinds.length ? a : '', 'exactly one value must be specified'));
  return errs;
}

/** Counter maps (a set's counters, a device's consumption): at most 32, DNS-label names. */
function countersErrors(counters: unknown, path: string): Errs {
  if (!isRecord(counters) || Object.keys(counters).length === 0) return [fieldRequired(path)];
  return eachEntry(counters, limits.countersPerSet, path, (k) => dnsLabelErrors(k, path));
}

function deviceErrors(d: unknown, path: string, perDevice: boolean): Errs {
  const dev = rec(d);
  const errs = dnsLabelErrors(dev.name, `${path}.name`);
  const attributes = rec(dev.attributes);
  const capacity = rec(dev.capacity);
  const entries = Object.keys(attributes).length + Object.keys(capacity).length;
  if (entries > limits.attributesAndCapacities) {
    errs.push(fieldInvalid(path, entries, `the total number of attributes and capacities must not exceed ${limits.attributesAndCapacities}`));
  }
  errs.push(...eachEntry(attributes, -1, `${path}.attributes`, (k, v) => [
    ...qualifiedAttributeNameErrors(k, `${path}.attributes`), ...attributeErrors(v, `${path}.attributes[${k}]`),
  ]));
  const multiple = dev.allowMultipleAllocations === true;
  errs.push(...eachEntry(capacity, -1, `${path}.capacity`, (k, v) => {
    const out = qualifiedAttributeNameErrors(k, `${path}.capacity`);
    if (!multiple && set(rec(v).requestPolicy)) out.push(fieldForbidden(`${path}.capacity[${k}].requestPolicy`, 'allowMultipleAllocations must be true'));
    return out;
  }));
  errs.push(...taintErrors(dev.taints, `${path}.taints`));
  errs.push(...eachUnique(dev.consumesCounters, limits.counterConsumptionsPerDevice, `${path}.consumesCounters`, (c) => str(rec(c).counterSet) ?? '', (c, p) => [
    ...requiredLabel(rec(c).counterSet, `${p}.counterSet`), ...countersErrors(rec(c).counters, `${p}.counters`),
  ]));
  const placement = ['nodeName', 'nodeSelector', 'allNodes'] as const;
  if (!perDevice) {
    if (placement.some((f) => set(dev[f]))) errs.push(fieldInvalid(path, null, '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec'));
    return errs;
  }
  const given: string[] = [];
  if (set(dev.nodeName)) {
    const name = str(dev.nodeName) ?? '';
    if (name) { given.push('`nodeName`'); errs.push(...nodeNameErrors(name, `${path}.nodeName`)); } else errs.push(fieldInvalid(`${path}.nodeName`, name, 'must not be empty'));
  }
  if (set(dev.nodeSelector)) { given.push('`nodeSelector`'); errs.push(...validateNodeSelector(dev.nodeSelector, `${path}.nodeSelector`)); }
  if (set(dev.allNodes)) {
    if (dev.allNodes === true) given.push('`allNodes`');
    else errs.push(fieldInvalid(`${path}.allNodes`, dev.allNodes, 'must be either unset or set to true'));
  }
  const oneOf = 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';
  if (given.length === 0) errs.push(fieldRequired(path, oneOf));
  else if (given.length > 1) errs.push(fieldInvalid(path, `{${given.join(', ')}}`, oneOf));
  return errs;
}

/** Which of nodeName, nodeSelector, allNodes and perDeviceNodeSelection the spec sets, with their own errors. */
function nodeAccessErrors(spec: Record<string, unknown>): Errs {
  const errs: Errs = [];
  const given: string[] = [];
  if (set(spec.nodeName)) {
    const name = str(spec.nodeName) ?? '';
    if (name) { given.push('`nodeName`'); errs.push(...nodeNameErrors(name, 'spec.nodeName')); } else errs.push(fieldInvalid('spec.nodeName', name, 'must be either unset or set to a non-empty string'));
  }
  if (set(spec.nodeSelector)) {
    given.push('`nodeSelector`');
    errs.push(...validateNodeSelector(spec.nodeSelector, 'spec.nodeSelector'));
    const terms = arr(rec(spec.nodeSelector).nodeSelectorTerms);
    if (terms.length !== 1) errs.push(fieldInvalid('spec.nodeSelector.nodeSelectorTerms', terms, 'must have exactly one node selector term'));
  }
  for (const f of ['allNodes', 'perDeviceNodeSelection']) {
    if (!set(spec[f])) continue;
    if (spec[f] === true) given.push(`\`${f}\``);
    else errs.push(fieldInvalid(`spec.${f}`, spec[f], 'must be either unset or set to true'));
  }
  const oneOf = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
  if (given.length === 0) errs.push(fieldRequired('spec', oneOf));
  else if (given.length > 1) errs.push(fieldInvalid('spec', `{${given.join(', ')}}`, `${oneOf}, but multiple fields are set`));
  return errs;
}

export function validateResourceSlice(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const pool = rec(spec.pool);
  const errs = [...driverNameErrors(spec.driver, 'spec.driver'), ...poolNameErrors(pool.name, 'spec.pool.name')];
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (count <= 0) errs.push(fieldInvalid('spec.pool.resourceSliceCount', count, 'must be greater than zero'));
  if (typeof pool.generation === 'number' && pool.generation < 0) errs.push(fieldInvalid('spec.pool.generation', pool.generation, 'must be greater than or equal to zero'));
  if (old) {
    const was = rec(old.spec);
    const fixed: [string, unknown, unknown][] = [['spec.pool.name', pool.name, rec(was.pool).name], ['spec.driver', spec.driver, was.driver], ['spec.nodeName', spec.nodeName, was.nodeName]];
    for (const [path, now, before] of fixed) if ((now ?? null) !== (before ?? null)) errs.push(fieldInvalid(path, now ?? null, immutable));
  }
  errs.push(...nodeAccessErrors(spec));
  if (set(spec.sharedCounters) && set(spec.devices)) errs.push(fieldInvalid('spec', '', 'only one of `sharedCounters` or `devices` is allowed'));
  const devices = arr(spec.devices);
  const advanced = devices.some((d) => arr(rec(d).taints).length > 0 || arr(rec(d).consumesCounters).length > 0);
  const perDevice = spec.perDeviceNodeSelection === true;
  errs.push(...eachUnique(devices, advanced ? limits.devicesWithTaintsOrCounters : limits.devices, 'spec.devices', (d) => str(rec(d).name) ?? '',
    (d, p) => deviceErrors(d, p, perDevice)));
  errs.push(...eachUnique(spec.sharedCounters, limits.counterSets, 'spec.sharedCounters', (c) => str(rec(c).name) ?? '', (c, p) => [
    ...requiredLabel(rec(c).name, `${p}.name`), ...countersErrors(rec(c).counters, `${p}.counters`),
  ]));
  return errs;
}

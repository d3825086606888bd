// ResourceClaim and ResourceClaimTemplate validation, as upstream's pkg/apis/resource/validation: the device claim
// (requests with unique DNS-label names, each `exactly` or `firstAvailable`; allocation modes and counts; class
// names; selectors; constraints and configuration naming requests of the claim), an immutable spec, and the
// status a scheduler or driver writes (reservations only for an allocated claim, an allocation set once).
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../../machinery/errors.js';
import { isDns1123Subdomain } from '../../../machinery/names.js';
import { isRecord, type KObject } from '../../../machinery/types.js';
import { arr, deepEqual, immutable, rec, str, validateAnnotations, validateLabels, type Errs } from '../common.js';
import { validateNodeSelector } from '../affinity.js';
import {
  deviceConfigurationErrors, dnsLabelErrors, driverNameErrors, eachItem, eachUnique, fullyQualifiedNameErrors, limits, poolNameErrors,
  selectorErrors, tolerationErrors, tooMany,
} from './common.js';

const allocationModes = ['All', 'ExactCount'];
const refError = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/** Request names of a claim: a main request's subrequest names, or undefined when it has none. */
type RequestNames = Map<string, Set<string> | undefined>;

function requestNamesOf(devices: Record<string, unknown>): RequestNames {
  const names: RequestNames = new Map();
  for (const r of arr(devices.requests)) {
    const req = rec(r);
    const subs = arr(req.firstAvailable);
    names.set(str(req.name) ?? '', subs.length ? new Set(subs.map((s) => str(rec(s).name) ?? '')) : undefined);
  }
  return names;
}

function hasRequest(names: RequestNames, ref: string): boolean {
  const [main, sub, ...rest] = ref.split('/');
  if (rest.length || !names.has(main)) return false;
  return sub === undefined || !!names.get(main)?.has(sub);
}

/** A reference to a request of the claim: `req` or `req/sub`. */
function requestRefError(v: unknown, path: string, names: RequestNames): Errs {
  const ref = str(v) ?? '';
  const segments = ref.split('/');
  if (segments.length > 2) return [fieldInvalid(path, ref, refError)];
  const errs = segments.flatMap((s) => dnsLabelErrors(s, path));
  if (!hasRequest(names, ref)) errs.push(fieldInvalid(path, ref, refError));
  return errs;
}

/** The requests a constraint or a configuration applies to. */
function requestRefErrors(list: unknown, path: string, names: RequestNames): Errs {
  return eachUnique(list, limits.requests, path, (v) => v, (v, p) => requestRefError(v, p, names));
}

function classNameErrors(v: unknown, path: string): Errs {
  const name = str(v) ?? '';
  if (name === '') return [fieldRequired(path)];
  return isDns1123Subdomain(name).map((m) => fieldInvalid(path, name, m));
}

function allocationModeErrors(req: Record<string, unknown>, path: string): Errs {
  const count = typeof req.count === 'number' ? req.count : 0;
  switch (req.allocationMode) {
    case 'All': return count !== 0 ? [fieldInvalid(`${path}.count`, count, "must not be specified when allocationMode is 'All'")] : [];
    case 'ExactCount': return count <= 0 ? [fieldInvalid(`${path}.count`, count, 'must be greater than zero')] : [];
    default: return [fieldNotSupported(`${path}.allocationMode`, req.allocationMode ?? '', allocationModes)];
  }
}

/** What an exact request and a subrequest share: class, selectors, allocation mode and count, tolerations. */
function exactErrors(req: Record<string, unknown>, path: string, stored: boolean): Errs {
  return [
    ...classNameErrors(req.deviceClassName, `${path}.deviceClassName`),
    ...selectorErrors(req.selectors, `${path}.selectors`, stored),
    ...allocationModeErrors(req, path),
    ...tolerationErrors(req.tolerations, `${path}.tolerations`),
  ];
}

const nameKey = (v: unknown) => str(rec(v).name) ?? '';

function requestErrors(r: unknown, path: string, stored: boolean): Errs {
  const req = rec(r);
  const errs = dnsLabelErrors(req.name, `${path}.name`);
  const first = arr(req.firstAvailable);
  const exactly = isRecord(req.exactly);
  if (!exactly && first.length === 0) errs.push(fieldRequired(path, 'exactly one of `exactly` or `firstAvailable` is required'));
  else if (exactly && first.length > 0) errs.push(fieldInvalid(path, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'));
  else if (exactly) errs.push(...exactErrors(rec(req.exactly), `${path}.exactly`, stored));
  else {
    errs.push(...eachUnique(first, limits.firstAvailable, `${path}.firstAvailable`, nameKey, (s, p) => [
      ...dnsLabelErrors(rec(s).name, `${p}.name`), ...exactErrors(rec(s), p, stored),
    ]));
  }
  return errs;
}

/** A DeviceClaim (`spec.devices` of a claim); `stored`: its selectors and parameters were accepted before. */
export function deviceClaimErrors(devicesIn: unknown, path: string, stored = false): Errs {
  const devices = rec(devicesIn);
  const names = requestNamesOf(devices);
  return [
    ...eachUnique(devices.requests, limits.requests, `${path}.requests`, nameKey, (r, p) => requestErrors(r, p, stored)),
    ...eachItem(devices.constraints, limits.constraints, `${path}.constraints`, (c, p) => {
      const con = rec(c);
      const errs = requestRefErrors(con.requests, `${p}.requests`, names);
      if (con.matchAttribute !== undefined && con.matchAttribute !== null) errs.push(...fullyQualifiedNameErrors(con.matchAttribute, `${p}.matchAttribute`));
      else if (con.distinctAttribute !== undefined && con.distinctAttribute !== null) errs.push(...fullyQualifiedNameErrors(con.distinctAttribute, `${p}.distinctAttribute`));
      else errs.push(fieldRequired(`${p}.matchAttribute`));
      return errs;
    }),
    ...eachItem(devices.config, limits.config, `${path}.config`, (c, p) => [
      ...requestRefErrors(rec(c).requests, `${p}.requests`, names), ...deviceConfigurationErrors(rec(c), p, stored),
    ]),
  ];
}

const immutableSpec = (obj: KObject, old: KObject): Errs => (deepEqual(obj.spec, old.spec) ? [] : [fieldInvalid('spec', obj.spec ?? null, immutable)]);

// ---- status ----

function allocationErrors(allocation: Record<string, unknown>, path: string, names: RequestNames): Errs {
  const devices = rec(allocation.devices);
  const errs = eachItem(devices.results, limits.allocationResults, `${path}.devices.results`, (r, p) => {
    const res = rec(r);
    return [
      ...requestRefError(res.request, `${p}.request`, names),
      ...driverNameErrors(res.driver, `${p}.driver`), ...poolNameErrors(res.pool, `${p}.pool`), ...dnsLabelErrors(res.device, `${p}.device`),
      ...tolerationErrors(res.tolerations, `${p}.tolerations`),
    ];
  });
  errs.push(...eachItem(devices.config, 2 * limits.config, `${path}.devices.config`, (c, p) => {
    const cfg = rec(c);
    const source = str(cfg.source) ?? '';
    const out: Errs = source === '' ? [fieldRequired(`${p}.source`)] : source === 'FromClaim' || source === 'FromClass' ? [] : [fieldNotSupported(`${p}.source`, source, ['FromClaim', 'FromClass'])];
    return [...out, ...requestRefErrors(cfg.requests, `${p}.requests`, names), ...deviceConfigurationErrors(cfg, p, false)];
  }));
  if (isRecord(allocation.nodeSelector)) errs.push(...validateNodeSelector(allocation.nodeSelector, `${path}.nodeSelector`));
  return errs;
}

const deviceId = (d: Record<string, unknown>) => `${str(d.driver) ?? ''}/${str(d.pool) ?? ''}/${str(d.device) ?? ''}${d.shareID ? `/${String(d.shareID)}` : ''}`;

function statusErrors(obj: KObject, old: KObject): Errs {
  const status = rec(obj.status);
  const oldStatus = rec(old.status);
  const names = requestNamesOf(rec(rec(obj.spec).devices));
  const errs = eachUnique(status.reservedFor, limits.reservedFor, 'status.reservedFor', (r) => str(rec(r).uid) ?? '', (r, p) => {
    const ref = rec(r);
    return (['resource', 'name', 'uid'] as const).filter((f) => !str(ref[f])).map((f) => fieldRequired(`${p}.${f}`));
  });
  const allocation = isRecord(status.allocation) ? status.allocation : undefined;
  const allocated = new Set(arr(rec(allocation?.devices).results).map((r) => deviceId(rec(r))));
  errs.push(...eachUnique(status.devices, -1, 'status.devices', (d) => deviceId(rec(d)), (d, p) => {
    const dev = rec(d);
    const out = [...driverNameErrors(dev.driver, `${p}.driver`), ...poolNameErrors(dev.pool, `${p}.pool`), ...dnsLabelErrors(dev.device, `${p}.device`)];
    if (!allocated.has(deviceId(dev))) out.push(fieldInvalid(p, deviceId(dev), 'must be an allocated device in the claim'));
    if (arr(dev.conditions).length > limits.deviceConditions) out.push(tooMany(`${p}.conditions`, arr(dev.conditions).length, limits.deviceConditions));
    return out;
  }));
  const reserved = arr(status.reservedFor);
  if (reserved.length > 0 && !allocation) errs.push(fieldForbidden('status.reservedFor', 'may not be specified when `allocated` is not set'));
  else if (reserved.length > 0 && rec(obj.metadata).deletionTimestamp) {
    const before = new Set(arr(oldStatus.reservedFor).map((r) => str(rec(r).uid)));
    if (reserved.some((r) => !before.has(str(rec(r).uid)))) {
      errs.push(fieldForbidden('status.reservedFor', 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'));
    }
  }
  if (allocation && isRecord(oldStatus.allocation)) {
    if (!deepEqual(allocation, oldStatus.allocation)) errs.push(fieldInvalid('status.allocation', allocation, immutable));
  } else if (allocation) errs.push(...allocationErrors(allocation, 'status.allocation', names));
  return errs;
}

export function validateResourceClaim(obj: KObject, old: KObject | undefined): Errs {
  if (!old) return deviceClaimErrors(rec(obj.spec).devices, 'spec.devices');
  return [...immutableSpec(obj, old), ...statusErrors(obj, old)];
}

export function validateResourceClaimTemplate(obj: KObject, old: KObject | undefined): Errs {
  if (old) return immutableSpec(obj, old);
  const spec = rec(obj.spec);
  const meta = rec(spec.metadata);
  return [
    ...validateLabels(meta.labels, 'spec.metadata.labels'), ...validateAnnotations(meta.annotations, 'spec.metadata.annotations'),
    ...deviceClaimErrors(rec(spec.spec).devices, 'spec.spec.devices'),
  ];
}

export const adminAccessLabel = 'resource.kubernetes.io/admin-access';

/**
 * Requests for admin access (`exactly.adminAccess: true`) in a claim's device claim, refused unless the namespace
 * carries the admin-access label (upstream's AuthorizedForAdmin); `nsLabels` are the namespace's labels.
 */
export function adminAccessErrors(devicesIn: unknown, path: string, nsLabels: Record<string, unknown>): Errs {
  if (nsLabels[adminAccessLabel] === 'true') return [];
  const errs: Errs = [];
  arr(rec(devicesIn).requests).forEach((r, i) => {
    if (rec(rec(r).exactly).adminAccess === true) {
      errs.push(fieldForbidden(`${path}.requests[${i}].exactly.adminAccess`, `admin access to devices requires the \`${adminAccessLabel}: true\` label on the containing namespace`));
    }
  });
  return errs;
}

/**
 * A status write drops the device statuses of devices the write deallocates (upstream's dropDeallocatedStatusDevices):
 * a scheduler clearing an allocation need not clear what drivers reported about its devices.
 */
export function dropDeallocatedDeviceStatuses(obj: KObject, old: KObject): void {
  const status = rec(obj.status);
  if (!Array.isArray(status.devices)) return;
  const results = (o: KObject) => arr(rec(rec(rec(o.status).allocation).devices).results).map((r) => deviceId({ ...rec(r), shareID: undefined }));
  const kept = new Set(results(obj));
  const gone = new Set(results(old).filter((id) => !kept.has(id)));
  const devices = status.devices.filter((d) => !gone.has(deviceId({ ...rec(d), shareID: undefined })));
  if (devices.length) status.devices = devices;
  else delete status.devices;
}

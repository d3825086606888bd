// DeviceClass validation, as upstream's pkg/apis/resource/validation: selectors (compiled again only when they
// changed), opaque driver configuration, and an optional extended resource name the class's devices serve.
import { fieldInvalid } from '../../../machinery/errors.js';
import { isQualifiedName } from '../../../machinery/names.js';
import type { KObject } from '../../../machinery/types.js';
import { deepEqual, rec, type Errs } from '../common.js';
import { deviceConfigurationErrors, eachItem, limits, selectorErrors } from './common.js';

/** An extended resource name (core's IsExtendedResourceName): a domain outside kubernetes.io, usable as a quota key. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function validateDeviceClass(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const was = old ? rec(old.spec) : undefined;
  const errs = selectorErrors(spec.selectors, 'spec.selectors', !!was && deepEqual(spec.selectors, was.selectors));
  const configStored = !!was && deepEqual(spec.config, was.config);
  errs.push(...eachItem(spec.config, limits.config, 'spec.config', (c, p) => deviceConfigurationErrors(rec(c), p, configStored)));
  const ext = spec.extendedResourceName;
  if (ext !== undefined && ext !== null && !(typeof ext === 'string' && isExtendedResourceName(ext))) {
    errs.push(fieldInvalid('spec.extendedResourceName', ext, 'must be a valid extended resource name'));
  }
  return errs;
}

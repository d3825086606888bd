// Container resource requirements (core/validation ValidateResourceRequirements): quantities, requests within
// limits, limits for resources that cannot be overcommitted, and which resource names a container may use.
import { fieldInvalid, fieldRequired } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { rec, type Errs } from './common.js';
import { isQualifiedName } from '../../machinery/names.js';
import { parseQuantity } from '../../machinery/quantity.js';

const isExtended = (name: string) => name.includes('/') && !name.startsWith('kubernetes.io/') && !name.startsWith('requests.');
const overcommitAllowed = (name: string) => !isExtended(name) && !name.startsWith('hugepages-');

export function validateResources(res: unknown, path: string): Errs {
  const errs: Errs = [];
  if (!isRecord(res)) return errs;
  const limits = rec(res.limits);
  const requests = rec(res.requests);
  const parsed = (m: Record<string, unknown>, kind: string) => {
    const out = new Map<string, number>();
    for (const [k, v] of Object.entries(m)) {
      const q = parseQuantity(v);
      if ('error' in q) errs.push(fieldInvalid(`${path}.${kind}[${k}]`, v, q.error));
      else if (q.value < 0) errs.push(fieldInvalid(`${path}.${kind}[${k}]`, String(v), 'must be greater than or equal to 0'));
      else out.set(k, q.value);
    }
    return out;
  };
  const lim = parsed(limits, 'limits');
  const req = parsed(requests, 'requests');
  for (const [k, r] of req) {
    const l = lim.get(k);
    const reqPath = `${path}.requests[${k}]`;
    if (l !== undefined) {
      if (!overcommitAllowed(k) && r !== l) errs.push(fieldInvalid(reqPath, String(requests[k]), `must be equal to ${k} limit of ${String(limits[k])}`));
      else if (r > l) errs.push(fieldInvalid(reqPath, String(requests[k]), `must be less than or equal to ${k} limit of ${String(limits[k])}`));
    } else if (!overcommitAllowed(k) && !hasOwn(limits, k)) {
      errs.push(fieldRequired(`${path}.limits[${k}]`, 'Limit must be set for non overcommitable resources'));
    }
  }
  return errs;
}

const containerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
const otherStandardResources = new Set([
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'requests.storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'storage',
  'services.nodeports', 'services.loadbalancers',
]);

/** validateContainerResourceName: standard container resources, or extended resources with a domain. */
export function validateContainerResourceNames(res: unknown, path: string): Errs {
  const errs: Errs = [];
  for (const kind of ['limits', 'requests']) {
    for (const name of Object.keys(rec(rec(res)[kind]))) {
      const p = `${path}.${kind}[${name}]`;
      const problems = isQualifiedName(name);
      if (problems.length) {
        errs.push(...problems.map((m) => fieldInvalid(p, name, m)));
        continue;
      }
      if (name.includes('/')) {
        const native = name.includes('kubernetes.io/');
        if (!native && (name.startsWith('requests.') || isQualifiedName(`requests.${name}`).length)) errs.push(fieldInvalid(p, name, "doesn't follow extended resource name standard"));
      } else if (!containerResources.has(name) && !name.startsWith('hugepages-')) {
        errs.push(fieldInvalid(p, name, otherStandardResources.has(name) ? 'must be a standard resource for containers' : 'must be a standard resource type or fully qualified'));
      }
    }
  }
  return errs;
}

// The params a binding hands its policy (upstream's generic.CollectParams): none without paramKind or paramRef
// (one evaluation with `params` null), the named object, or every object the selector selects.
import type { AdmissionAttributes } from '../types.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { storageKey } from '../../registry/resource.js';
import { selectorMatches } from '../../registry/validation/common.js';

/** Most params one binding evaluates (a bound on selector bindings). */
export const maxParams = 100;

export function collectParams(a: AdmissionAttributes, paramKind: unknown, paramRef: unknown): Array<KObject | null> {
  if (!isRecord(paramKind) || !isRecord(paramRef)) return [null];
  const apiVersion = typeof paramKind.apiVersion === 'string' ? paramKind.apiVersion : '';
  const kind = typeof paramKind.kind === 'string' ? paramKind.kind : '';
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const def = a.registry.findByKind(group, kind);
  if (!def) throw new Error(`paramKind kind \`&ParamKind{APIVersion:${apiVersion},Kind:${kind},}\` not known`);
  const refNs = typeof paramRef.namespace === 'string' ? paramRef.namespace : '';
  let ns = '';
  if (def.namespaced) {
    ns = refNs || a.namespace;
    if (!ns) throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (refNs) throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  const name = typeof paramRef.name === 'string' ? paramRef.name : '';
  let params: KObject[];
  if (name) {
    if (paramRef.selector !== undefined && paramRef.selector !== null) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
    const obj = a.registry.getStored(storageKey(def), ns, name);
    params = obj ? [obj] : [];
  } else if (isRecord(paramRef.selector)) {
    const sel = paramRef.selector;
    params = a.registry.listStored(storageKey(def), def.namespaced ? ns : undefined).filter((o) => selectorMatches(sel, o.metadata.labels)).slice(0, maxParams);
  } else throw new Error('one of name or selector must be provided');
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  return params;
}

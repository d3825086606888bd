// DeleteOptions of a DELETE (query and body) or an Eviction, decoded and validated as upstream does.
import { badRequest, fieldInvalid, fieldNotSupported, invalid, type FieldError } from '../machinery/errors.js';
import { isRecord } from '../machinery/types.js';
import type { DeleteOptions } from '../registry/registry.js';
import { bool, dryRun, int, str, type Query } from './query.js';

const jsonKind = (v: unknown) => (typeof v === 'number' ? `number ${v}` : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v);
const typeError = (v: unknown, field: string, goType: string) => badRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field DeleteOptions.${field} of type ${goType}`);
const propagationPolicies = ['Foreground', 'Background', 'Orphan'];

export function deleteOptions(q: Query, body: unknown): DeleteOptions {
  const opts: DeleteOptions = {};
  let policy: string | undefined;
  if (body !== undefined && body !== null && !isRecord(body)) throw badRequest('the body of a delete request must be a DeleteOptions object');
  if (isRecord(body)) {
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') throw badRequest(`expected DeleteOptions, got ${String(body.kind)}`);
    const p = body.propagationPolicy;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'string') throw typeError(p, 'propagationPolicy', 'v1.DeletionPropagation');
      policy = p;
    }
    const o = body.orphanDependents;
    if (o !== undefined && o !== null) {
      if (typeof o !== 'boolean') throw typeError(o, 'orphanDependents', 'bool');
      opts.orphanDependents = o;
    }
    const g = body.gracePeriodSeconds;
    if (g !== undefined && g !== null) {
      if (typeof g !== 'number' || !Number.isInteger(g) || Math.abs(g) >= 2 ** 63) throw typeError(g, 'gracePeriodSeconds', 'int64');
      opts.gracePeriodSeconds = g;
    }
    const pre = body.preconditions;
    if (pre !== undefined && pre !== null) {
      if (!isRecord(pre)) throw typeError(pre, 'preconditions', 'v1.Preconditions');
      for (const f of ['uid', 'resourceVersion']) {
        if (pre[f] !== undefined && pre[f] !== null && typeof pre[f] !== 'string') throw typeError(pre[f], `preconditions.${f}`, 'string');
      }
      opts.preconditions = pre as DeleteOptions['preconditions'];
    }
    const d = body.dryRun;
    if (d !== undefined && d !== null) {
      if (!Array.isArray(d) || d.some((x) => typeof x !== 'string')) throw typeError(d, 'dryRun', '[]string');
      if (d.some((x) => x !== 'All')) throw invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: []string{${d.map((x) => JSON.stringify(x)).join(', ')}}: supported values: "All"` }]);
      if (d.length) opts.dryRun = true;
    }
  }
  const pp = str(q, 'propagationPolicy');
  if (pp !== undefined) policy = pp;
  const g = int(q, 'gracePeriodSeconds');
  if (g !== undefined) opts.gracePeriodSeconds = g;
  if (str(q, 'orphanDependents') !== undefined) opts.orphanDependents = bool(q, 'orphanDependents');
  if (dryRun(q, 'DeleteOptions')) opts.dryRun = true;
  // ValidateDeleteOptions: one of the three policies, and not together with the deprecated orphanDependents.
  const errs: FieldError[] = [];
  if (policy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldInvalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !propagationPolicies.includes(policy)) errs.push(fieldNotSupported('propagationPolicy', policy, [...propagationPolicies, 'nil']));
  if (errs.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errs);
  if (policy !== undefined) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  return opts;
}

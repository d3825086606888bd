// The scale subresource of custom resources (`subresources.scale`): an autoscaling/v1 Scale read from the object at
// specReplicasPath, statusReplicasPath and labelSelectorPath, and a replica count written back at specReplicasPath,
// with apiextensions-apiserver's texts for paths that hold the wrong type. Paths are dotted (`.spec.replicas`).
import type { Scale } from '../generated/k8s/autoscaling/v1.js';
import { badRequest, fieldInvalid, internalError, type ApiError, type FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { goTypeName, goValue } from '../util/go-format.js';
import { hasOwn, setOwn } from '../util/own.js';

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** The replica count upstream puts in the Scale it hands to a patch when the object has none (the smallest int32). */
export const unsetReplicas = -2147483648;
const maxInt32 = 2147483647;

/** Reads the `subresources.scale` stanza of a CRD version (undefined when the version has none). */
export function scalePathsOf(raw: unknown): ScalePaths | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const label = s(r.labelSelectorPath);
  return { specReplicasPath: s(r.specReplicasPath), statusReplicasPath: s(r.statusReplicasPath), ...(label ? { labelSelectorPath: label } : {}) };
}

const split = (path: string): string[] => (path.startsWith('.') ? path.slice(1) : path).split('.');
const jsonPath = (fields: string[]): string => `.${fields.join('.')}`;
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** unstructured.NestedFieldNoCopy: the value, whether it was found, or an accessor error text. */
function nested(obj: unknown, fields: string[]): { value?: unknown; found: boolean; error?: string } {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (!isMap(val)) {
      return { found: false, error: `${jsonPath(fields.slice(0, i + 1))} accessor error: ${goValue(val, true)} is of the type ${goTypeName(val, true)}, expected map[string]interface{}` };
    }
    if (!hasOwn(val, fields[i])) return { found: false };
    val = val[fields[i]];
  }
  return { value: val, found: true };
}

/** unstructured.NestedInt64 over a dotted path. */
function nestedInt(obj: unknown, path: string): { value: number; found: boolean; error?: string } {
  const fields = split(path);
  const r = nested(obj, fields);
  if (r.error || !r.found) return { value: 0, found: false, error: r.error };
  const v = r.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return { value: 0, found: false, error: `${jsonPath(fields)} accessor error: ${goValue(v, true)} is of the type ${goTypeName(v, true)}, expected int64` };
  }
  return { value: v, found: true };
}

function nestedString(obj: unknown, path: string): { value: string; error?: string } {
  const fields = split(path);
  const r = nested(obj, fields);
  if (r.error || !r.found) return { value: '', error: r.error };
  if (typeof r.value !== 'string') {
    return { value: '', error: `${jsonPath(fields)} accessor error: ${goValue(r.value, true)} is of the type ${goTypeName(r.value, true)}, expected string` };
  }
  return { value: r.value };
}

/** Go's int32(x) of an int64: wraps around. */
const toInt32 = (n: number): number => Number(BigInt.asIntN(32, BigInt(n)));

/**
 * The Scale of `obj` and whether spec replicas were found (upstream's scaleFromCustomResource). A path that crosses or
 * ends in a value of the wrong type throws a 500, as upstream returns the accessor error unwrapped.
 */
export function readScale(obj: KObject, paths: ScalePaths): { scale: Scale; specReplicasFound: boolean } {
  const spec = nestedInt(obj, paths.specReplicasPath);
  if (spec.error) throw internalError(spec.error);
  const status = nestedInt(obj, paths.statusReplicasPath);
  if (status.error) throw internalError(status.error);
  let selector = '';
  if (paths.labelSelectorPath) {
    const sel = nestedString(obj, paths.labelSelectorPath);
    if (sel.error) throw internalError(sel.error);
    selector = sel.value;
  }
  const m = obj.metadata;
  const metadata = { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp };
  // Scale's spec.replicas and status.selector are omitempty in Go; status.replicas is always written.
  const replicas = toInt32(spec.value);
  const scale: Scale = {
    kind: 'Scale', apiVersion: 'autoscaling/v1', metadata,
    spec: replicas !== 0 ? { replicas } : {},
    status: selector ? { replicas: toInt32(status.value), selector } : { replicas: toInt32(status.value) },
  };
  return { scale, specReplicasFound: spec.found };
}

/** GET .../scale: the Scale, or upstream's 500 when the object has no value at specReplicasPath. */
export function scaleOf(obj: KObject, paths: ScalePaths): Scale {
  const { scale, specReplicasFound } = readScale(obj, paths);
  if (!specReplicasFound) throw internalError(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} does not exist`);
  return scale;
}

/** The Scale an update or patch starts from: spec.replicas is `unsetReplicas` when the object has none. */
export function scaleForUpdate(obj: KObject, paths: ScalePaths): Scale {
  const { scale, specReplicasFound } = readScale(obj, paths);
  if (!specReplicasFound) scale.spec = { replicas: unsetReplicas };
  return scale;
}

/**
 * A copy of `obj` with `replicas` written at specReplicasPath (missing maps are created). `replicas === unsetReplicas`
 * (the update left the placeholder in place) is upstream's 400; a path through a non-map value is a 500.
 */
export function applyScale(obj: KObject, replicas: number, paths: ScalePaths): KObject {
  if (replicas === unsetReplicas) throw badRequest(`the spec replicas field ${JSON.stringify(paths.specReplicasPath)} cannot be empty`);
  const fields = split(paths.specReplicasPath);
  const out = structuredClone(obj) as Record<string, unknown>;
  let m = out;
  for (let i = 0; i < fields.length - 1; i++) {
    const next = hasOwn(m, fields[i]) ? m[fields[i]] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      setOwn(m, fields[i], created);
      m = created;
    } else if (isMap(next)) m = next;
    else throw scaleSetError(fields.slice(0, i + 1));
  }
  setOwn(m, fields[fields.length - 1], replicas);
  return out as KObject;
}

function scaleSetError(fields: string[]): ApiError {
  return internalError(`value cannot be set because ${jsonPath(fields)} is not a map[string]interface{}`);
}

/**
 * The custom resource validator's scale checks (run on create and update when the version has a scale subresource):
 * replicas at both paths must be int64s in 0..MaxInt32, the selector a string. Field paths are the dotted paths as
 * declared, leading dot included (upstream's field.NewPath(path)).
 */
export function validateScaleFields(obj: KObject, paths: ScalePaths, specToo = true): FieldError[] {
  const errs: FieldError[] = [];
  const check = (path: string) => {
    const r = nestedInt(obj, path);
    if (r.error) errs.push(fieldInvalid(path, 0, r.error));
    else if (r.value < 0) errs.push(fieldInvalid(path, r.value, 'should be a non-negative integer'));
    else if (r.value > maxInt32) errs.push(fieldInvalid(path, r.value, `should be less than or equal to ${maxInt32}`));
  };
  if (specToo) check(paths.specReplicasPath);
  check(paths.statusReplicasPath);
  if (paths.labelSelectorPath) {
    const sel = nestedString(obj, paths.labelSelectorPath);
    if (sel.error) errs.push(fieldInvalid(paths.labelSelectorPath, '', sel.error));
  }
  return errs;
}

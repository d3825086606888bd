// Field selectors for custom resources (`kubectl get --field-selector spec.color=red`): metadata.name, metadata.namespace
// for namespaced kinds, and each `selectableFields[].jsonPath` of the served version, named by its path without the
// leading dot. A field's value is Go's %v of the single value its path finds, or "" when it finds nothing.
import type { FieldGetter } from '../machinery/fields.js';
import type { KObject } from '../machinery/types.js';
import { isRecord } from '../machinery/types.js';
import { compileJsonPath } from './jsonpath.js';
import { goValue } from '../util/go-format.js';

/** The `selectableFields` paths declared by one version of a CRD. */
export function selectableFieldPaths(crd: unknown, version: string): string[] {
  const spec = isRecord(crd) && isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const v = versions.find((x) => x.name === version);
  const fields = v && Array.isArray(v.selectableFields) ? v.selectableFields.filter(isRecord) : [];
  return fields.map((f) => (typeof f.jsonPath === 'string' ? f.jsonPath : '')).filter((p) => p !== '');
}

/** A getter for one selectable field path such as `.spec.color`. */
export function selectableFieldGetter(jsonPath: string): FieldGetter {
  let path: ReturnType<typeof compileJsonPath> | undefined;
  try {
    path = compileJsonPath(jsonPath);
  } catch {
    path = undefined;
  }
  return (obj: KObject) => {
    if (!path) return undefined;
    let results: unknown[][];
    try {
      results = path.find(obj);
    } catch {
      return undefined;
    }
    if (results.length === 0 || results[0].length === 0) return '';
    // Upstream refuses (an internal error) a path that finds several values; no field of a valid CRD can.
    if (results.length > 1 || results[0].length > 1) return undefined;
    const value = results[0][0];
    return value === null || value === undefined ? '' : goValue(value, true);
  };
}

/**
 * Field getters for `ResourceDef.fieldSelectors` of one served version: the names a field selector may use. Cluster-scoped
 * kinds do not offer metadata.namespace (upstream: `field label not supported: metadata.namespace`).
 */
export function crdFieldSelectors(crd: unknown, version: string, namespaced: boolean): Record<string, FieldGetter> {
  const getters = Object.create(null) as Record<string, FieldGetter>;
  getters['metadata.name'] = (o) => o.metadata.name;
  if (namespaced) getters['metadata.namespace'] = (o) => o.metadata.namespace ?? '';
  for (const p of selectableFieldPaths(crd, version)) {
    const name = p.startsWith('.') ? p.slice(1) : p;
    if (name === 'metadata.name' || name === 'metadata.namespace') continue;
    getters[name] = selectableFieldGetter(p);
  }
  return getters;
}

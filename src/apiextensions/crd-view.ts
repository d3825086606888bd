// A CustomResourceDefinition (apiextensions.k8s.io/v1 JSON) seen as upstream's validation sees it after converting
// it to the internal version: per-version schema, subresources, printer columns and selectable fields that are
// identical in every version are lifted to the spec (so their errors read `spec.validation...`,
// `spec.subresources...`, `spec.additionalPrinterColumns[0]...`), the others stay per version.
import { deepEqual } from '../registry/validation/common.js';
import { isRecord } from '../machinery/types.js';
import { goQuote } from '../util/go-format.js';

export type Json = Record<string, unknown>;

export interface VersionView {
  raw: Json;
  name: string;
  served: boolean;
  storage: boolean;
  /** `schema` when not lifted. */
  schema?: Json;
  subresources?: Json;
  columns?: unknown[];
  selectableFields?: unknown[];
}

export interface CrdView {
  spec: Json;
  names: Json;
  /** undefined when `spec.versions` is absent (Go: a nil slice). */
  versionsRaw: unknown[] | undefined;
  versions: VersionView[];
  /** Lifted fields (the internal spec.validation, spec.subresources, ...). */
  validation?: Json;
  subresources?: Json;
  columns?: unknown[];
  selectableFields?: unknown[];
  preserveUnknownFields: boolean;
}

export const rec = (v: unknown): Json => (isRecord(v) ? v : {});
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const optRec = (v: unknown): Json | undefined => (isRecord(v) ? v : undefined);
const optList = (v: unknown): unknown[] | undefined => (Array.isArray(v) && v.length > 0 ? v : undefined);

/** Pointer equality as apiequality.Semantic compares *T: both nil, or both set and deeply equal. */
function samePtr(a: Json | undefined, b: Json | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return deepEqual(a, b);
}

export function viewOf(crd: unknown): CrdView {
  const spec = rec(rec(crd).spec);
  const versionsRaw = Array.isArray(spec.versions) ? spec.versions : undefined;
  const versions: VersionView[] = (versionsRaw ?? []).map((v) => {
    const r = rec(v);
    return {
      raw: r, name: str(r.name), served: r.served === true, storage: r.storage === true,
      schema: optRec(r.schema), subresources: optRec(r.subresources),
      columns: optList(r.additionalPrinterColumns), selectableFields: optList(r.selectableFields),
    };
  });
  const view: CrdView = { spec, names: rec(spec.names), versionsRaw, versions, preserveUnknownFields: spec.preserveUnknownFields === true };
  if (versions.length === 0) return view;
  const first = versions[0];
  if (versions.every((v) => samePtr(v.schema, first.schema))) {
    view.validation = first.schema;
    for (const v of versions) v.schema = undefined;
  }
  if (versions.every((v) => samePtr(v.subresources, first.subresources))) {
    view.subresources = first.subresources;
    for (const v of versions) v.subresources = undefined;
  }
  if (versions.every((v) => deepEqual(v.columns, first.columns))) {
    view.columns = first.columns;
    for (const v of versions) v.columns = undefined;
  }
  if (versions.every((v) => deepEqual(v.selectableFields, first.selectableFields))) {
    view.selectableFields = first.selectableFields;
    for (const v of versions) v.selectableFields = undefined;
  }
  return view;
}

// ---- Go's %#v of the internal versions list, as `spec.versions: Invalid value: ...` prints it ----

/** Stands in for the heap address Go prints for a non-nil pointer (it differs from run to run upstream). */
const fakePointer = '0xc000100000';

function columnGo(c: unknown): string {
  const r = rec(c);
  const pr = typeof r.priority === 'number' ? Math.trunc(r.priority) : 0;
  return `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(str(r.name))}, Type:${goQuote(str(r.type))}, Format:${goQuote(str(r.format))}, Description:${goQuote(str(r.description))}, Priority:${pr}, JSONPath:${goQuote(str(r.jsonPath))}}`;
}

function versionGo(v: VersionView): string {
  const ptr = (type: string, set: boolean) => `(*${type})(${set ? fakePointer : 'nil'})`;
  const cols = v.columns ? `[]apiextensions.CustomResourceColumnDefinition{${v.columns.map(columnGo).join(', ')}}` : '[]apiextensions.CustomResourceColumnDefinition(nil)';
  const sels = v.selectableFields
    ? `[]apiextensions.SelectableField{${v.selectableFields.map((f) => `apiextensions.SelectableField{JSONPath:${goQuote(str(rec(f).jsonPath))}}`).join(', ')}}`
    : '[]apiextensions.SelectableField(nil)';
  return `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(v.name)}, Served:${v.served}, Storage:${v.storage}, Deprecated:${v.raw.deprecated === true}, `
    + `DeprecationWarning:${ptr('string', typeof v.raw.deprecationWarning === 'string')}, Schema:${ptr('apiextensions.CustomResourceValidation', v.schema !== undefined)}, `
    + `Subresources:${ptr('apiextensions.CustomResourceSubresources', v.subresources !== undefined)}, AdditionalPrinterColumns:${cols}, SelectableFields:${sels}}`;
}

/** `[]apiextensions.CustomResourceDefinitionVersion{...}` (pointer addresses are a fixed stand-in). */
export function versionsGo(view: CrdView): string {
  if (view.versionsRaw === undefined) return '[]apiextensions.CustomResourceDefinitionVersion(nil)';
  return `[]apiextensions.CustomResourceDefinitionVersion{${view.versions.map(versionGo).join(', ')}}`;
}

/** Go's %#v of a []string: `[]string{"a", "b"}`, `[]string(nil)` for an absent list. */
export function goStrings(list: string[] | undefined): string {
  return list === undefined ? '[]string(nil)' : `[]string{${list.map(goQuote).join(', ')}}`;
}

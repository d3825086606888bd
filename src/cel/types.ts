// The static type model the checker and the cost estimator share: a small mirror of cel-go's declared types,
// with the size bounds a structural schema gives (maxLength, maxItems, maxProperties).

export type CelT =
  | { k: 'dyn' }
  | { k: 'bool' }
  | { k: 'int' }
  | { k: 'uint' }
  | { k: 'double' }
  | { k: 'string'; maxLength?: number }
  | { k: 'bytes'; maxLength?: number }
  | { k: 'null' }
  | { k: 'type' }
  | { k: 'list'; elem: CelT; maxItems?: number }
  | { k: 'map'; key: CelT; val: CelT; maxProperties?: number }
  | { k: 'object'; name: string; fields: Map<string, CelT>; maxProperties?: number }
  | { k: 'opaque'; name: string }
  | { k: 'optional'; inner: CelT };

/** Upstream's bound on a request body; unbounded strings, lists and maps are sized from it. */
export const maxRequestSizeBytes = 3 * 1024 * 1024;

export const DYN: CelT = { k: 'dyn' };
export const BOOL: CelT = { k: 'bool' };
export const INT: CelT = { k: 'int' };
export const UINT: CelT = { k: 'uint' };
export const DOUBLE: CelT = { k: 'double' };
export const STRING: CelT = { k: 'string' };
export const BYTES: CelT = { k: 'bytes' };
export const NULL: CelT = { k: 'null' };
export const TYPE: CelT = { k: 'type' };
export const listOf = (elem: CelT, maxItems?: number): CelT => ({ k: 'list', elem, maxItems });
export const mapOf = (key: CelT, val: CelT, maxProperties?: number): CelT => ({ k: 'map', key, val, maxProperties });
export const opaque = (name: string): CelT => ({ k: 'opaque', name });
export const optionalOf = (inner: CelT): CelT => ({ k: 'optional', inner });

export const DURATION = opaque('google.protobuf.Duration');
export const TIMESTAMP = opaque('google.protobuf.Timestamp');
export const QUANTITY = opaque('kubernetes.Quantity');
export const URL_T = opaque('kubernetes.URL');
export const IP_T = opaque('net.IP');
export const CIDR_T = opaque('net.CIDR');
export const SEMVER_T = opaque('kubernetes.Semver');
export const FORMAT_T = opaque('kubernetes.NamedFormat');

/** The name cel-go prints for a type in error messages. */
export function typeName(t: CelT): string {
  switch (t.k) {
    case 'list': return `list(${typeName(t.elem)})`;
    case 'map': return `map(${typeName(t.key)}, ${typeName(t.val)})`;
    case 'object': return t.name;
    case 'opaque': return t.name;
    case 'optional': return `optional_type(${typeName(t.inner)})`;
    case 'null': return 'null_type';
    default: return t.k;
  }
}

/** True when a value of type `a` may be used where `b` is expected (dyn matches everything). */
export function assignable(a: CelT, b: CelT): boolean {
  if (a.k === 'dyn' || b.k === 'dyn') return true;
  if (a.k !== b.k) return false;
  if (a.k === 'list' && b.k === 'list') return assignable(a.elem, b.elem);
  if (a.k === 'map' && b.k === 'map') return assignable(a.key, b.key) && assignable(a.val, b.val);
  if (a.k === 'opaque' && b.k === 'opaque') return a.name === b.name;
  if (a.k === 'optional' && b.k === 'optional') return assignable(a.inner, b.inner);
  return true;
}

export const isNumeric = (t: CelT) => t.k === 'int' || t.k === 'uint' || t.k === 'double';

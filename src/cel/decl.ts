// CEL declared types of schema nodes (upstream's SchemaDeclType) and property-name escaping: a property such as
// `foo-bar` is `self.foo__dash__bar` in CEL; a name CEL cannot spell is left out of the object type.
import { BOOL, DOUBLE, DYN, INT, STRING, listOf, mapOf, maxRequestSizeBytes, type CelT } from './types.js';
import { maxSchemaDepth, type SchemaView } from './schema-view.js';

const reserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function',
  'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const escapable = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

export function escapeName(name: string): string | undefined {
  if (reserved.has(name)) return `__${name}__`;
  if (!escapable.test(name)) return undefined;
  return name.replace(/__|\.|-|\//g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
}

export function unescapeName(name: string): string {
  const kw = /^__(.+)__$/.exec(name);
  if (kw && reserved.has(kw[1])) return kw[1];
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_m, w: string) => (w === 'underscores' ? '__' : w === 'dot' ? '.' : w === 'dash' ? '-' : '/'));
}

let typeCounter = 0;

function objectMetaFields(fields: Map<string, CelT>) {
  fields.set('apiVersion', STRING);
  fields.set('kind', STRING);
  fields.set('metadata', { k: 'object', name: 'metadata', fields: new Map([['name', STRING], ['generateName', STRING]]) });
}

/** The CEL type of values at this schema node; `resourceRoot` adds apiVersion, kind and metadata. */
export function declType(v: SchemaView, resourceRoot = false, depth = 0): CelT {
  return sized(v, resourceRoot, depth).t;
}

// Upstream's size bounds (k8s.io/apiserver/pkg/cel/common/schemas.go), which the cost estimate multiplies: a list
// without maxItems holds as many of its smallest items as fit in a request, a map likewise, and a string without
// maxLength is as long as a request (a maxLength counts runes: up to 4 bytes each). The smallest serialized
// value of each type: `""` 2, `true` 4, a number 1, `[]` and `{}` 2, an object `{}` plus each required property
// without a default (its name, quotes, colon and comma: 4 more); a date 12, a date-time 21, a duration 3.
const requestBytes = maxRequestSizeBytes - 2;
const maxDatetimeLength = 32;
const maxDurationLength = 32;
const dateLength = 12;

interface Sized { t: CelT; min: number }

function sized(v: SchemaView, resourceRoot: boolean, depth: number): Sized {
  if (depth > maxSchemaDepth) return { t: DYN, min: 1 };
  if (v.intOrString) return { t: DYN, min: 1 };
  switch (v.type) {
    case 'object': {
      if (v.additionalProperties) {
        const val = sized(v.additionalProperties, v.additionalProperties.embedded, depth + 1);
        return { t: mapOf(STRING, val.t, v.maxProperties ?? Math.floor(requestBytes / (val.min + 6))), min: 2 };
      }
      if (!v.properties && !resourceRoot && !v.embedded) {
        return { t: v.preserveUnknown ? DYN : mapOf(STRING, DYN, v.maxProperties ?? Math.floor(requestBytes / 7)), min: 2 };
      }
      const fields = new Map<string, CelT>();
      if (resourceRoot || v.embedded) objectMetaFields(fields);
      const required = new Set(v.required ?? []);
      let min = 2;
      for (const [k, child] of v.properties ?? []) {
        const c = sized(child, child.embedded, depth + 1);
        if (required.has(k) && !child.hasDefault) min += k.length + c.min + 4;
        const esc = escapeName(k);
        if (esc === undefined) continue;
        fields.set(esc, c.t);
        // cel-go accepts a reserved word after a dot; `metadata.namespace` is how rules spell it.
        if (esc !== k && reserved.has(k)) fields.set(k, c.t);
      }
      return { t: { k: 'object', name: `selfType${++typeCounter}`, fields, maxProperties: v.maxProperties }, min };
    }
    case 'array': {
      const item = v.items ? sized(v.items, v.items.embedded, depth + 1) : { t: DYN, min: 1 };
      return { t: listOf(item.t, v.maxItems ?? Math.floor(requestBytes / (item.min + 1))), min: 2 };
    }
    case 'string':
      return stringType(v);
    case 'integer':
      return { t: INT, min: 1 };
    case 'number':
      return { t: DOUBLE, min: 1 };
    case 'boolean':
      return { t: BOOL, min: 4 };
    default:
      return { t: DYN, min: 1 };
  }
}

function stringType(v: SchemaView): Sized {
  switch (v.format) {
    case 'byte': return { t: { k: 'string', maxLength: v.maxLength ?? requestBytes }, min: 2 };
    case 'duration': return { t: { k: 'string', maxLength: maxDurationLength }, min: 3 };
    case 'date': return { t: { k: 'string', maxLength: dateLength }, min: dateLength };
    case 'date-time': return { t: { k: 'string', maxLength: maxDatetimeLength }, min: 21 };
    default: break;
  }
  const maxLength = v.maxLength !== undefined ? v.maxLength * 4 : v.enumMaxLength ?? requestBytes;
  return { t: { k: 'string', maxLength }, min: 2 };
}

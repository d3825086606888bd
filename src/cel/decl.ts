// CEL declared types of schema nodes (upstream's SchemaDeclType) and property-name escaping: a property such as
// `foo-bar` is `self.foo__dash__bar` in CEL; a name CEL cannot spell is left out of the object type.
import { BOOL, DOUBLE, DYN, INT, STRING, listOf, mapOf, type CelT } from './types.js';
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
  if (depth > maxSchemaDepth || v.intOrString) return DYN;
  switch (v.type) {
    case 'object': {
      if (v.additionalProperties) return mapOf(STRING, declType(v.additionalProperties, v.additionalProperties.embedded, depth + 1), v.maxProperties);
      if (!v.properties && !resourceRoot && !v.embedded) return v.preserveUnknown ? DYN : mapOf(STRING, DYN, v.maxProperties);
      const fields = new Map<string, CelT>();
      if (resourceRoot || v.embedded) objectMetaFields(fields);
      for (const [k, child] of v.properties ?? []) {
        const esc = escapeName(k);
        if (esc === undefined) continue;
        const t = declType(child, child.embedded, depth + 1);
        fields.set(esc, t);
        // cel-go accepts a reserved word after a dot; `metadata.namespace` is how rules spell it.
        if (esc !== k && reserved.has(k)) fields.set(k, t);
      }
      return { k: 'object', name: `selfType${++typeCounter}`, fields, maxProperties: v.maxProperties };
    }
    case 'array':
      return listOf(v.items ? declType(v.items, v.items.embedded, depth + 1) : DYN, v.maxItems);
    case 'string':
      return { k: 'string', maxLength: v.maxLength };
    case 'integer':
      return INT;
    case 'number':
      return DOUBLE;
    case 'boolean':
      return BOOL;
    default:
      return DYN;
  }
}

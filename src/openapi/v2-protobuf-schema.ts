// The openapi.v2 (gnostic OpenAPIv2.proto) messages for JSON schemas and parameters: Schema and its parts,
// Any/NamedAny for `default`, `enum`, `example` and `x-…` vendor extensions (Any{ yaml = 2 } holding the
// value's YAML text, as gnostic compiles them), Parameter, the four non-body sub-schemas, PrimitivesItems
// and Header. Each encoder writes one message's fields in field-number order.
import { bool, dbl, i64, isObj, LEN, msg, named, objMsg, str, strs, tag, type Enc, type J, type YamlText } from './v2-protobuf-wire.js';
import type { WireWriter as Writer } from './v2-protobuf-wire.js';

/** Builds the schema/parameter encoders; `yaml` renders the text stored in `Any.yaml`. */
export function schemaEncoders(yaml: YamlText) {
  function any(w: Writer, no: number, v: unknown): void {
    if (v === undefined) return;
    tag(w, no, LEN).fork();
    str(w, 2, yaml(v)); // Any{ google.protobuf.Any value = 1; string yaml = 2 }
    w.ldelim();
  }
  function anys(w: Writer, no: number, v: unknown): void {
    if (Array.isArray(v)) for (const x of v) any(w, no, x);
  }
  /** `repeated NamedAny vendor_extension = no`: every `x-…` key. */
  function exts(w: Writer, no: number, v: J): void {
    for (const k in v) {
      if (!k.startsWith('x-')) continue;
      tag(w, no, LEN).fork();
      str(w, 1, k);
      any(w, 2, v[k]);
      w.ldelim();
    }
  }

  const externalDocs: Enc = (w, v) => {
    str(w, 1, v.description);
    str(w, 2, v.url);
    exts(w, 3, v);
  };
  const xml: Enc = (w, v) => {
    str(w, 1, v.name);
    str(w, 2, v.namespace);
    str(w, 3, v.prefix);
    bool(w, 4, v.attribute);
    bool(w, 5, v.wrapped);
    exts(w, 6, v);
  };

  const schema: Enc = (w, v) => {
    str(w, 1, v.$ref);
    str(w, 2, v.format);
    str(w, 3, v.title);
    str(w, 4, v.description);
    any(w, 5, v.default);
    dbl(w, 6, v.multipleOf);
    dbl(w, 7, v.maximum);
    bool(w, 8, v.exclusiveMaximum);
    dbl(w, 9, v.minimum);
    bool(w, 10, v.exclusiveMinimum);
    i64(w, 11, v.maxLength);
    i64(w, 12, v.minLength);
    str(w, 13, v.pattern);
    i64(w, 14, v.maxItems);
    i64(w, 15, v.minItems);
    bool(w, 16, v.uniqueItems);
    i64(w, 17, v.maxProperties);
    i64(w, 18, v.minProperties);
    strs(w, 19, v.required);
    anys(w, 20, v.enum);
    const ap = v.additionalProperties; // AdditionalPropertiesItem{ oneof { Schema schema = 1; bool boolean = 2 } }
    if (typeof ap === 'boolean') {
      tag(w, 21, LEN).fork();
      tag(w, 2, 0).bool(ap);
      w.ldelim();
    } else if (isObj(ap)) {
      tag(w, 21, LEN).fork();
      msg(w, 1, schema, ap);
      w.ldelim();
    }
    const t = v.type; // TypeItem{ repeated string value = 1 }
    if (typeof t === 'string' || Array.isArray(t)) {
      tag(w, 22, LEN).fork();
      strs(w, 1, typeof t === 'string' ? [t] : t);
      w.ldelim();
    }
    const items = v.items; // ItemsItem{ repeated Schema schema = 1 }
    if (isObj(items) || Array.isArray(items)) {
      tag(w, 23, LEN).fork();
      for (const s of Array.isArray(items) ? items : [items]) objMsg(w, 1, schema, s);
      w.ldelim();
    }
    if (Array.isArray(v.allOf)) for (const s of v.allOf) objMsg(w, 24, schema, s);
    if (isObj(v.properties)) {
      tag(w, 25, LEN).fork(); // Properties{ repeated NamedSchema additional_properties = 1 }
      named(w, 1, schema, v.properties);
      w.ldelim();
    }
    str(w, 26, v.discriminator);
    bool(w, 27, v.readOnly);
    objMsg(w, 28, xml, v.xml);
    objMsg(w, 29, externalDocs, v.externalDocs);
    any(w, 30, v.example);
    exts(w, 31, v);
  };

  /** The run of primitive-validation fields shared by parameters, headers and items, starting at `n`. */
  function primitiveFields(w: Writer, v: J, n: number): void {
    str(w, n, v.type);
    str(w, n + 1, v.format);
    objMsg(w, n + 2, primitivesItems, v.items);
    str(w, n + 3, v.collectionFormat);
    any(w, n + 4, v.default);
    dbl(w, n + 5, v.maximum);
    bool(w, n + 6, v.exclusiveMaximum);
    dbl(w, n + 7, v.minimum);
    bool(w, n + 8, v.exclusiveMinimum);
    i64(w, n + 9, v.maxLength);
    i64(w, n + 10, v.minLength);
    str(w, n + 11, v.pattern);
    i64(w, n + 12, v.maxItems);
    i64(w, n + 13, v.minItems);
    bool(w, n + 14, v.uniqueItems);
    anys(w, n + 15, v.enum);
    dbl(w, n + 16, v.multipleOf);
  }
  const primitivesItems: Enc = (w, v) => {
    primitiveFields(w, v, 1);
    exts(w, 18, v);
  };
  const header: Enc = (w, v) => {
    primitiveFields(w, v, 1);
    str(w, 18, v.description);
    exts(w, 19, v);
  };
  /** Query and formData sub-schemas (allow_empty_value = 5, primitives from 6); header and path (from 5). */
  const subSchema = (withAllowEmpty: boolean): Enc => (w, v) => {
    bool(w, 1, v.required);
    str(w, 2, v.in);
    str(w, 3, v.description);
    str(w, 4, v.name);
    if (withAllowEmpty) bool(w, 5, v.allowEmptyValue);
    const first = withAllowEmpty ? 6 : 5;
    primitiveFields(w, v, first);
    exts(w, first + 17, v);
  };
  const NON_BODY: Record<string, [number, Enc]> = {
    header: [1, subSchema(false)],
    formData: [2, subSchema(true)],
    query: [3, subSchema(true)],
    path: [4, subSchema(false)],
  };
  /** Parameter{ oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2 } } */
  const parameter: Enc = (w, v) => {
    if (v.in === 'body') {
      tag(w, 1, LEN).fork();
      str(w, 1, v.description);
      str(w, 2, v.name);
      str(w, 3, v.in);
      bool(w, 4, v.required);
      objMsg(w, 5, schema, v.schema);
      exts(w, 6, v);
      w.ldelim();
      return;
    }
    const sub = NON_BODY[String(v.in)];
    if (!sub) return;
    tag(w, 2, LEN).fork();
    msg(w, sub[0], sub[1], v);
    w.ldelim();
  };
  /** ParametersItem{ oneof { Parameter parameter = 1; JsonReference json_reference = 2 } } */
  function parametersItems(w: Writer, no: number, v: unknown): void {
    if (!Array.isArray(v)) return;
    for (const p of v) {
      if (!isObj(p)) continue;
      tag(w, no, LEN).fork();
      if (typeof p.$ref === 'string') {
        tag(w, 2, LEN).fork();
        str(w, 1, p.$ref);
        str(w, 2, p.description);
        w.ldelim();
      } else msg(w, 1, parameter, p);
      w.ldelim();
    }
  }

  return { any, exts, externalDocs, schema, header, parameter, parametersItems };
}

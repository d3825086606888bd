// The openapi.v2 Document message layout (gnostic's OpenAPIv2.proto, package openapi.v2) written as encoder
// functions over swagger JSON: each function writes one message's fields, in field-number order, onto a
// WireWriter. proto3 rules apply: empty strings, false and 0 are omitted, an object present in the JSON
// becomes a present (possibly empty) message, oneof members are written even when zero. Values of `default`,
// `enum`, `example` and vendor extensions (`x-…` keys) become `Any{ yaml = 2 }` holding the YAML text of the
// value, the way gnostic compiles them. (Response schemas always use Schema, never FileSchema.)
import { bool, isObj, LEN, msg, named, objMsg, str, strs, tag, type Enc, type J, type YamlText } from './v2-protobuf-wire.js';
import type { WireWriter as Writer } from './v2-protobuf-wire.js';
import { schemaEncoders } from './v2-protobuf-schema.js';

/** Builds the Document encoder; `yaml` renders the text stored in `Any.yaml`. */
export function documentEncoder(yaml: YamlText): Enc {
  const { any, exts, externalDocs, schema, header, parameter, parametersItems } = schemaEncoders(yaml);

  const response: Enc = (w, v) => {
    str(w, 1, v.description);
    if (isObj(v.schema)) {
      tag(w, 2, LEN).fork(); // SchemaItem{ oneof { Schema schema = 1; FileSchema file_schema = 2 } }
      msg(w, 1, schema, v.schema);
      w.ldelim();
    }
    if (isObj(v.headers)) {
      tag(w, 3, LEN).fork();
      named(w, 1, header, v.headers);
      w.ldelim();
    }
    if (isObj(v.examples)) {
      tag(w, 4, LEN).fork();
      for (const [k, x] of Object.entries(v.examples)) {
        tag(w, 1, LEN).fork();
        str(w, 1, k);
        any(w, 2, x);
        w.ldelim();
      }
      w.ldelim();
    }
    exts(w, 5, v);
  };
  /** ResponseValue{ oneof { Response response = 1; JsonReference json_reference = 2 } } */
  const responseValue: Enc = (w, v) => {
    if (typeof v.$ref === 'string') {
      tag(w, 2, LEN).fork();
      str(w, 1, v.$ref);
      w.ldelim();
    } else msg(w, 1, response, v);
  };
  const responses: Enc = (w, v) => {
    const codes: J = {};
    for (const k in v) if (!k.startsWith('x-')) codes[k] = v[k];
    named(w, 1, responseValue, codes);
    exts(w, 2, v);
  };
  /** SecurityRequirement{ repeated NamedStringArray additional_properties = 1 }, StringArray{ repeated string value = 1 } */
  function security(w: Writer, no: number, v: unknown): void {
    if (!Array.isArray(v)) return;
    for (const req of v) {
      if (!isObj(req)) continue;
      tag(w, no, LEN).fork();
      for (const [name, scopes] of Object.entries(req)) {
        tag(w, 1, LEN).fork();
        str(w, 1, name);
        tag(w, 2, LEN).fork();
        strs(w, 1, scopes);
        w.ldelim();
        w.ldelim();
      }
      w.ldelim();
    }
  }

  const operation: Enc = (w, v) => {
    strs(w, 1, v.tags);
    str(w, 2, v.summary);
    str(w, 3, v.description);
    objMsg(w, 4, externalDocs, v.externalDocs);
    str(w, 5, v.operationId);
    strs(w, 6, v.produces);
    strs(w, 7, v.consumes);
    parametersItems(w, 8, v.parameters);
    objMsg(w, 9, responses, v.responses);
    strs(w, 10, v.schemes);
    bool(w, 11, v.deprecated);
    security(w, 12, v.security);
    exts(w, 13, v);
  };
  const pathItem: Enc = (w, v) => {
    str(w, 1, v.$ref);
    objMsg(w, 2, operation, v.get);
    objMsg(w, 3, operation, v.put);
    objMsg(w, 4, operation, v.post);
    objMsg(w, 5, operation, v.delete);
    objMsg(w, 6, operation, v.options);
    objMsg(w, 7, operation, v.head);
    objMsg(w, 8, operation, v.patch);
    parametersItems(w, 9, v.parameters);
    exts(w, 10, v);
  };
  const paths: Enc = (w, v) => {
    exts(w, 1, v);
    const items: J = {};
    for (const k in v) if (!k.startsWith('x-')) items[k] = v[k];
    named(w, 2, pathItem, items);
  };

  /** SecurityDefinitionsItem oneof member number and the JSON keys in field order (vendor extensions last). */
  function securityScheme(v: J): [number, string[]] {
    if (v.type === 'basic') return [1, ['type', 'description']];
    if (v.type === 'apiKey') return [2, ['type', 'name', 'in', 'description']];
    switch (v.flow) {
      case 'implicit': return [3, ['type', 'flow', 'scopes', 'authorizationUrl', 'description']];
      case 'password': return [4, ['type', 'flow', 'scopes', 'tokenUrl', 'description']];
      case 'application': return [5, ['type', 'flow', 'scopes', 'tokenUrl', 'description']];
      default: return [6, ['type', 'flow', 'scopes', 'authorizationUrl', 'tokenUrl', 'description']];
    }
  }
  const securityDefinitionsItem: Enc = (w, v) => {
    const [member, keys] = securityScheme(v);
    tag(w, member, LEN).fork();
    keys.forEach((k, i) => {
      if (k !== 'scopes') return str(w, i + 1, v[k]);
      if (!isObj(v.scopes)) return;
      tag(w, i + 1, LEN).fork(); // Oauth2Scopes{ repeated NamedString additional_properties = 1 }
      for (const [name, d] of Object.entries(v.scopes)) {
        tag(w, 1, LEN).fork();
        str(w, 1, name);
        str(w, 2, d);
        w.ldelim();
      }
      w.ldelim();
    });
    exts(w, keys.length + 1, v);
    w.ldelim();
  };

  const info: Enc = (w, v) => {
    str(w, 1, v.title);
    str(w, 2, v.version);
    str(w, 3, v.description);
    str(w, 4, v.termsOfService);
    objMsg(w, 5, (w2, c) => { str(w2, 1, c.name); str(w2, 2, c.url); str(w2, 3, c.email); exts(w2, 4, c); }, v.contact);
    objMsg(w, 6, (w2, l) => { str(w2, 1, l.name); str(w2, 2, l.url); exts(w2, 3, l); }, v.license);
    exts(w, 7, v);
  };
  /** `Xxx{ repeated NamedXxx additional_properties = 1 }` wrapper around a JSON map. */
  const wrapped = (enc: Enc): Enc => (w, v) => named(w, 1, enc, v);

  return (w, v) => {
    str(w, 1, v.swagger);
    objMsg(w, 2, info, v.info);
    str(w, 3, v.host);
    str(w, 4, v.basePath);
    strs(w, 5, v.schemes);
    strs(w, 6, v.consumes);
    strs(w, 7, v.produces);
    objMsg(w, 8, paths, v.paths);
    objMsg(w, 9, wrapped(schema), v.definitions);
    objMsg(w, 10, wrapped(parameter), v.parameters);
    objMsg(w, 11, wrapped(response), v.responses);
    security(w, 12, v.security);
    objMsg(w, 13, wrapped(securityDefinitionsItem), v.securityDefinitions);
    if (Array.isArray(v.tags)) {
      for (const t of v.tags) objMsg(w, 14, (w2, x) => { str(w2, 1, x.name); str(w2, 2, x.description); objMsg(w2, 3, externalDocs, x.externalDocs); exts(w2, 4, x); }, t);
    }
    objMsg(w, 15, externalDocs, v.externalDocs);
    exts(w, 16, v);
  };
}

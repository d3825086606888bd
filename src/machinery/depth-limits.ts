// How deeply request bodies may nest, and the checks decoded JSON gets before anything walks it.
//
// - JSON: upstream's encoding/json limit, 10,000 levels. Everything that walks a request body before the
//   kind's schema drops unknown fields (patch engines, field pruning) is iterative or trampolined, so such a
//   document is handled, as upstream handles it.
// - YAML: the yaml library composes documents recursively and reaches the end of Node's stack near 800
//   levels; the limit keeps it far from there (a RegExp compiled near the end of the stack aborts the process).
// - Protobuf: messages of served kinds nest a few dozen levels at most.
// - Stored objects: after unknown fields are dropped only free-form fields (FieldsV1, RawExtension) can nest
//   arbitrarily; objects are copied and serialized with V8's recursive structuredClone and JSON.stringify,
//   which give up between 2,000 and 4,500 levels, so what is stored is held to 1,000.
import { badRequest, type ApiError } from './errors.js';

export const maxJsonDepth = 10_000;
export const maxYamlDepth = 300;
export const maxProtobufDepth = 100;
export const maxObjectDepth = 1_000;

/** encoding/json's syntax error when a document nests deeper than its scanner allows. */
export const jsonTooDeep = (kind: 'object' | 'array') => `invalid character '${kind === 'array' ? '[' : '{'}' exceeded max depth`;

/** A stored object nested deeper than Bonsai keeps (free-form fields only; unknown fields are dropped first). */
export function objectTooDeep(kind: string): ApiError {
  return badRequest(`${kind} is nested more than ${maxObjectDepth} levels deep, more than bonsai stores`);
}

// Request bodies: JSON, YAML and protobuf, decoded to unknown and narrowed to objects.
import { ApiError, badRequest, unsupportedMediaType } from '../machinery/errors.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { decodeProtobufBody } from './protobuf.js';
import { decodeJson, DecodeError } from './json-body.js';
import { decodeYaml } from './yaml-body.js';
import { decoderFor, predecoded } from './body-off-thread.js';

/** The scheme kube-apiserver decodes built-in kinds with, as its "no kind is registered" errors name it. */
export const schemeName = 'pkg/api/legacyscheme/scheme.go:30';
/** The struct upstream first decodes a body into to find its kind, as its unmarshal errors name it. */
export const findKindType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * A PATCH whose Content-Type is no patch type: upstream's router refuses it before the handler runs (its routes
 * declare what they consume), so the Status carries the router's words and empty details.
 */
export const unsupportedPatchType = () => new ApiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});

/** A strategic merge patch of a custom resource: upstream lists the patch types custom resources take. */
export const strategicMergeRefused = () => new ApiError(415, 'UnsupportedMediaType',
  'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');

/**
 * Parses a body by content type: JSON (also for no Content-Type, as upstream defaults to its first serializer),
 * YAML (also apply-patch+yaml, patches are parsed as JSON by their handler) or protobuf. Anything else, among them
 * the types a web page may send without a CORS preflight (text/plain, application/x-www-form-urlencoded,
 * multipart/form-data), is 415 as upstream answers it.
 */
export function parseBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  const mt = mediaType(contentType);
  if (!raw || raw.length === 0) return undefined;
  const decoder = decoderFor(mt);
  const done = decoder && predecoded(raw, decoder);
  if (done) return done.value;
  if (mt === 'application/vnd.kubernetes.protobuf') return decodeProtobufBody(raw);
  const text = raw.toString('utf8');
  if (mt === 'application/yaml' || mt === 'application/apply-patch+yaml') {
    try {
      return decodeYaml(text);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      throw badRequest(`error converting YAML to JSON: ${e.message}`);
    }
  }
  if (mt === '' || mt === 'application/json') {
    try {
      return decodeJson(text);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      throw badRequest(`couldn't get version/kind; json parse error: ${e.message}`);
    }
  }
  throw unsupportedMediaType();
}

/** What create and update decode (no Content-Type is JSON). */
const objectMediaTypes = new Set(['', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);

/** A body that must be an object (create/update). */
export function objectBody(raw: Buffer | undefined, contentType: string | undefined): KObject {
  // Create and update negotiate the decoder before reading the body, so even an empty body of another type is 415.
  if (!objectMediaTypes.has(mediaType(contentType))) throw unsupportedMediaType();
  const v = parseBody(raw, contentType);
  if (v === undefined) throw badRequest('the body of the request was empty');
  if (!isRecord(v)) throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type ${findKindType}`);
  const obj = v as KObject;
  // null is no value at all for Go's ObjectMeta struct: the same as no metadata.
  if (obj.metadata !== undefined && obj.metadata !== null && !isRecord(obj.metadata)) throw badRequest('metadata: expected an object');
  obj.metadata ??= {};
  return obj;
}

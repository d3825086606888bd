// Request bodies: JSON, YAML and protobuf, decoded to unknown and narrowed to objects.
import { badRequest, unsupportedMediaType } from '../machinery/errors.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { decodeProtobufBody } from './protobuf.js';
import { decodeJson, DecodeError } from './json-body.js';
import { decodeYaml } from './yaml-body.js';

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Parses a body as JSON or YAML by content type (YAML is a superset used for apply-patch+yaml). */
export function parseBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  const mt = mediaType(contentType);
  if (!raw || raw.length === 0) return undefined;
  if (mt === 'application/vnd.kubernetes.protobuf') return decodeProtobufBody(raw);
  const text = raw.toString('utf8');
  if (mt === 'application/yaml' || mt === 'application/apply-patch+yaml' || mt === 'application/x-yaml' || mt === 'text/yaml') {
    try {
      return decodeYaml(text);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      throw badRequest(`error converting YAML to JSON: ${e.message}`);
    }
  }
  if (mt === '' || mt === 'application/json' || mt.endsWith('+json') || mt === '*/*' || mt === 'text/plain') {
    try {
      return decodeJson(text);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      throw badRequest(`couldn't get version/kind; json parse error: ${e.message}`);
    }
  }
  throw unsupportedMediaType(mt);
}

/** A body that must be an object (create/update). */
export function objectBody(raw: Buffer | undefined, contentType: string | undefined): KObject {
  const v = parseBody(raw, contentType);
  if (v === undefined) throw badRequest('the body of the request was empty');
  if (!isRecord(v)) throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  const obj = v as KObject;
  // null is no value at all for Go's ObjectMeta struct: the same as no metadata.
  if (obj.metadata !== undefined && obj.metadata !== null && !isRecord(obj.metadata)) throw badRequest('metadata: expected an object');
  obj.metadata ??= {};
  return obj;
}

// Turns a decoded protobufjs message (loaded with keepCase) into the JSON kube-apiserver writes for the same
// Go object: special types (Time, Duration, Quantity, IntOrString, RawExtension, ...), JSON names that differ
// from proto names, Go-embedded structs flattened into their parent, and Go's `omitempty` for scalars.
import type { Field, Type } from 'protobufjs';
import { badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/types.js';
import { omitEmptyFields } from './protobuf-omitempty.js';
import { formatGoDuration } from '../util/duration.js';
import { maxJsonDepth, maxProtobufDepth } from '../machinery/depth-limits.js';
import { hasOwn, setOwn } from '../util/own.js';
import { decodeJson, DecodeError } from './json-body.js';

/** Decodes a nested `k8s\0` envelope found inside a RawExtension, `depth` messages deep. */
export type NestedDecoder = (raw: Buffer, depth: number) => unknown;

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1.';
const OMIT = Symbol('omit');
type Converted = unknown | typeof OMIT;

// Go-embedded structs: the proto has a sub-message field whose fields JSON flattens into the parent.
const INLINE_FIELDS = new Set([
  'volumeSource', 'persistentVolumeSource', 'ephemeralContainerCommon', 'localObjectReference',
  'ingressRuleValue', 'ruleWithOperations', 'deviceConfiguration',
]);

function isInline(field: Field, fieldType: Type): boolean {
  if (INLINE_FIELDS.has(field.name)) return true;
  if (field.name === 'handler') return fieldType.name === 'ProbeHandler';
  if (field.name === 'rule') return fieldType.name === 'Rule' && fieldType.fullName.startsWith('.k8s.io.api.admissionregistration.');
  return false;
}

function jsonName(parent: Type, name: string): string {
  if (name === 'uID') return 'uid';
  if (name === 'aPIGroup') return 'apiGroup';
  if (parent.name === 'JSONSchemaProps') {
    if (name === 'ref') return '$ref';
    if (name === 'schema') return '$schema';
    if (name.startsWith('xKubernetes')) return 'x-kubernetes' + name.slice('xKubernetes'.length).replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  }
  // Webhooks, Expression, Name; core.v1.DaemonEndpoint.Port is `Port` in JSON as well.
  if (/^[A-Z]/.test(name) && parent.name !== 'DaemonEndpoint') return name[0].toLowerCase() + name.slice(1);
  return name;
}

/** int64 values arrive as Long (from the `long` package), number or string. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') return Number(v);
  if (isRecord(v) && typeof v.toString === 'function') return Number(String(v.toString()));
  throw badRequest('invalid integer in protobuf body');
}

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string') return BigInt(v);
  if (isRecord(v) && typeof v.toString === 'function') return BigInt(String(v.toString()));
  throw badRequest('invalid integer in protobuf body');
}

function toBuffer(v: unknown): Buffer {
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'string') return Buffer.from(v, 'base64');
  throw badRequest('invalid bytes in protobuf body');
}

function parseEmbeddedJson(v: unknown, depth: number, nested?: NestedDecoder): unknown {
  const buf = toBuffer(v);
  if (buf.length === 0) return null;
  if (nested && buf.length >= 4 && buf[0] === 0x6b && buf[1] === 0x38 && buf[2] === 0x73 && buf[3] === 0) return nested(buf, depth + 1);
  try {
    return decodeJson(buf.toString('utf8'), Math.max(1, maxJsonDepth - depth));
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(`invalid embedded JSON in protobuf body: ${e.message}`);
    throw e;
  }
}

function isoSeconds(seconds: number): string {
  const d = new Date(seconds * 1000);
  if (!Number.isFinite(d.getTime()) || d.getUTCFullYear() < 0 || d.getUTCFullYear() > 9999) throw badRequest('timestamp out of range in protobuf body');
  return d.toISOString().slice(0, 19);
}

/** meta.v1.Time: RFC3339 in UTC, whole seconds (upstream drops nanos on decode). */
export function formatTime(seconds: number): string {
  return `${isoSeconds(seconds)}Z`;
}

/** meta.v1.MicroTime: RFC3339 in UTC with exactly 6 fractional digits. */
export function formatMicroTime(seconds: number, nanos: number): string {
  return `${isoSeconds(seconds)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function isEmptyMessage(type: Type, msg: object): boolean {
  return type.fieldsArray.every((f) => !hasOwn(msg, f.name));
}

/** Special types whose JSON form is not their proto shape; undefined when `type` is an ordinary message. */
function convertSpecial(type: Type, msg: Record<string, unknown>, depth: number, nested?: NestedDecoder): Converted | undefined {
  const full = type.fullName;
  if (full === META + 'Time') {
    return isEmptyMessage(type, msg) ? null : formatTime(toNumber(msg.seconds ?? 0));
  }
  if (full === META + 'MicroTime') {
    return isEmptyMessage(type, msg) ? null : formatMicroTime(toNumber(msg.seconds ?? 0), toNumber(msg.nanos ?? 0));
  }
  if (full === META + 'Duration') return formatGoDuration(toBigInt(msg.duration ?? 0));
  if (full === META + 'FieldsV1') return parseEmbeddedJson(msg.Raw ?? new Uint8Array(), depth);
  if (full === '.k8s.io.apimachinery.pkg.api.resource.Quantity' || full === '.k8s.io.apimachinery.pkg.api.resource.QuantityValue') {
    return typeof msg.string === 'string' && msg.string !== '' ? msg.string : '0';
  }
  if (full === '.k8s.io.apimachinery.pkg.util.intstr.IntOrString') {
    return toNumber(msg.type ?? 0) === 1 ? String(msg.strVal ?? '') : toNumber(msg.intVal ?? 0);
  }
  if (full === '.k8s.io.apimachinery.pkg.runtime.RawExtension') return parseEmbeddedJson(msg.raw ?? new Uint8Array(), depth, nested);
  if (full === '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON') return parseEmbeddedJson(msg.raw ?? new Uint8Array(), depth);
  if (type.name === 'ExtraValue' || full === META + 'Verbs') return Array.isArray(msg.items) ? msg.items.map(String) : [];
  if (full.startsWith('.k8s.io.apiextensions_apiserver.') && type.name.startsWith('JSONSchemaPropsOr')) {
    const schemaType = type.fields.schema?.resolvedType;
    if (hasOwn(msg, 'schema') && isRecord(msg.schema) && schemaType && 'fieldsArray' in schemaType) {
      return convertMessage(schemaType as Type, msg.schema, nested, depth + 1);
    }
    if (type.name === 'JSONSchemaPropsOrBool') return msg.allows === true;
    const listField = type.name === 'JSONSchemaPropsOrArray' ? 'jSONSchemas' : 'property';
    const list = msg[listField];
    const field = type.fields[listField];
    return Array.isArray(list) && field ? list.map((v) => convertValue(field, v, depth, nested)) : [];
  }
  return undefined;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function convertScalar(field: Field, v: unknown): unknown {
  switch (field.type) {
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64':
      return toNumber(v);
    case 'bytes':
      return toBuffer(v).toString('base64');
    case 'bool':
      return v === true;
    default:
      return v;
  }
}

function messageType(field: Field): Type | undefined {
  const t = field.resolvedType;
  return t && 'fieldsArray' in t ? (t as Type) : undefined;
}

function convertValue(field: Field, v: unknown, depth: number, nested?: NestedDecoder): unknown {
  const mt = messageType(field);
  if (!mt) return convertScalar(field, v);
  if (!isRecord(v)) throw badRequest('malformed protobuf body');
  return convertMessage(mt, v, nested, depth + 1);
}

/**
 * Converts one decoded message (keepCase names) to its JSON form; `depth` is how deep it sits, for the limit
 * on envelopes nested in RawExtensions.
 */
export function convertMessage(type: Type, msg: Record<string, unknown>, nested?: NestedDecoder, depth = 0): unknown {
  if (depth > maxProtobufDepth) throw badRequest(`unable to decode protobuf body: messages nest more than ${maxProtobufDepth} levels deep`);
  const special = convertSpecial(type, msg, depth, nested);
  if (special !== undefined) return special;
  const omitEmpty = omitEmptyFields(type.fullName);
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    if (!hasOwn(msg, field.name)) continue;
    const v = msg[field.name];
    if (v === null || v === undefined) continue;
    const name = jsonName(type, field.name);
    if (field.map) {
      if (!isRecord(v) || Object.keys(v).length === 0) continue;
      const m: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) setOwn(m, k, convertValue(field, item, depth, nested));
      out[name] = m;
    } else if (field.repeated) {
      if (!Array.isArray(v) || v.length === 0) continue;
      out[name] = v.map((item: unknown) => convertValue(field, item, depth, nested));
    } else {
      const mt = messageType(field);
      if (mt) {
        if (!isRecord(v)) throw badRequest('malformed protobuf body');
        const c = convertMessage(mt, v, nested, depth + 1);
        // ObjectMeta.creationTimestamp is `omitzero` upstream; other zero Times marshal as null.
        if (c === null && field.name === 'creationTimestamp' && type.fullName === META + 'ObjectMeta') continue;
        if (isInline(field, mt) && isRecord(c)) Object.assign(out, c);
        else out[name] = c;
      } else {
        const c = convertScalar(field, v);
        if (isZero(c) && omitEmpty.has(field.name)) continue;
        out[name] = c;
      }
    }
  }
  return out;
}

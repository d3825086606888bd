// ApiError carries a metav1.Status; every failure that reaches a client is one of these.
import type { Status, StatusCause } from './types.js';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  /** metav1.Status with its keys in upstream's order (kind … reason, details, code), as clients compare bytes. */
  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason };
    if (this.details) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

/** A resource reference for messages: `pods`, `deployments.apps`. */
export interface ResourceRef {
  group: string;
  resource: string;
}
const qualified = (r: ResourceRef) => (r.group ? `${r.resource}.${r.group}` : r.resource);
const detail = (r: ResourceRef, name: string): StatusDetails => ({ name, group: r.group || undefined, kind: r.resource });

export const notFound = (r: ResourceRef, name: string) =>
  new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, detail(r, name));
export const alreadyExists = (r: ResourceRef, name: string) =>
  new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, detail(r, name));
export const conflict = (r: ResourceRef, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
  new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, detail(r, name));
export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);
export const forbidden = (message: string, details?: StatusDetails) => new ApiError(403, 'Forbidden', message, details);
export const methodNotAllowed = (message = 'the server does not allow this method on the requested resource') =>
  new ApiError(405, 'MethodNotAllowed', message);
export const gone = (message: string) => new ApiError(410, 'Expired', message);
/** The body's media type is not one the endpoint decodes (upstream's negotiation error names the accepted ones). */
export const unsupportedMediaType = () =>
  new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
export const tooLarge = (message = 'Request entity too large: limit is 3145728') => new ApiError(413, 'RequestEntityTooLarge', message);
export const tooManyRequests = (message: string, details?: StatusDetails) => new ApiError(429, 'TooManyRequests', message, details);
export const internalError = (message: string) => new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
export const notAcceptable = (message: string) => new ApiError(406, 'NotAcceptable', message);

/** One field error as upstream's field.Error renders it. */
export interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueNotFound' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueTypeInvalid' | 'InternalError';
  field: string;
  /** Full message as upstream renders it, e.g. `Required value` or `Invalid value: "x": must be ...`. */
  message: string;
}

export const fieldRequired = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' });
export const fieldInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid', field, message: `Invalid value: ${renderValue(value)}${detail ? `: ${detail}` : ''}`,
});
export const fieldNotSupported = (field: string, value: unknown, valid: string[]): FieldError => ({
  type: 'FieldValueNotSupported', field, message: `Unsupported value: ${renderValue(value)}${valid.length ? `: supported values: ${valid.map((v) => `"${v}"`).join(', ')}` : ''}`,
});
export const fieldForbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
export const fieldDuplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, message: `Duplicate value: ${renderValue(value)}` });
export const fieldNotFound = (field: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field, message: `Not found: ${renderValue(value)}` });
export const fieldTooLong = (field: string, value: unknown, max: number): FieldError => ({ type: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} bytes` });

/** field.InternalError: with no path (a plain error a webhook turned into a field error) the field reads `<nil>`. */
export const fieldInternal = (field: string | undefined, detail: string): FieldError => ({ type: 'InternalError', field: field ?? '<nil>', message: `Internal error: ${detail}` });

/** Renders a value as upstream field errors do: quoted strings, JSON for structured values. */
function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** 422 Invalid: `Kind "name" is invalid: [a, b]` with causes. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const parts = errors.map((e) => `${e.field}: ${e.message}`);
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${group ? `${kind}.${group}` : kind} "${name}" is invalid: ${summary}`, {
    name, group: group || undefined, kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
  });
}

// Turns a create or update body into an object of the expected kind in storage form, applying fieldValidation.
// Failures are worded as kube-apiserver's handlers word them: a body whose kind cannot even be read is "the object
// provided is unrecognized (must be of type Namespace): ..."; one that reads as a kind that cannot become the
// expected one, or that does not decode into it, is "Pod in version "v1" cannot be handled as a Namespace: ...".
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../machinery/errors.js';
import { apiVersionOf, isRecord, parseApiVersion, type KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { servedVersions, type ResourceDef } from '../registry/resource.js';
import { checkAgainstSchema } from '../registry/validation/schema.js';
import { jsonKind } from '../util/go-format.js';
import { getOwn } from '../util/own.js';
import { goJsonSyntaxError } from '../util/go-json-syntax.js';
import { findKindType, mediaType, parseBody, schemeName } from './body.js';
import { toStorage } from './output.js';
import { auditOf } from '../audit/http-audit.js';

type Mode = 'Strict' | 'Warn' | 'Ignore';

/** summarizeData: the body's first 30 bytes, as text when it starts like an object, else in hex. */
function summary(raw: Buffer | undefined): string {
  if (!raw || raw.length === 0) return '<empty>';
  const head = raw.subarray(0, 30);
  const more = raw.length > 30 ? ' ...' : '';
  return raw[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
}

function unrecognized(def: ResourceDef, why: string, raw: Buffer | undefined): ApiError {
  return badRequest(`the object provided is unrecognized (must be of type ${def.kind}): ${why} (${summary(raw)})`);
}

/** The Go package of a group's internal types, as conversion errors name them (`core.Namespace`, `apps.Deployment`). */
const internalPackage = (group: string) => (group === '' || group === 'events.k8s.io' ? 'core' : group.split('.')[0]);

/**
 * The body as an object with the group, version and kind it declares (defaulted from the URL), or the error
 * upstream's decoder gives when it cannot tell them.
 */
function readBody(def: ResourceDef, version: string, req: FastifyRequest): { obj: KObject; group: string; version: string; kind: string } {
  const raw = req.body as Buffer | undefined;
  const mt = mediaType(req.headers['content-type']);
  // parseBody decodes no other JSON type (415), so only these can fail with a JSON syntax error.
  const isJson = mt === '' || mt === 'application/json';
  let parsed: unknown;
  try {
    parsed = parseBody(raw, req.headers['content-type']);
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 400) throw e;
    const syntax = isJson && raw ? goJsonSyntaxError(raw) : undefined;
    throw unrecognized(def, syntax ? `couldn't get version/kind; json parse error: ${syntax}` : e.message, raw);
  }
  if (parsed === undefined) throw unrecognized(def, "couldn't get version/kind; json parse error: unexpected end of JSON input", raw);
  if (parsed === null) parsed = {};
  if (!isRecord(parsed)) throw unrecognized(def, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(parsed)} into Go value of type ${findKindType}`, raw);
  const obj = parsed as KObject;
  for (const k of ['apiVersion', 'kind'] as const) {
    const v = getOwn(obj, k);
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw unrecognized(def, `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${k} of type string`, raw);
    }
  }
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  if (apiVersion.indexOf('/') !== apiVersion.lastIndexOf('/')) throw unrecognized(def, `unexpected GroupVersion string: ${apiVersion}`, raw);
  let { group, version: ver } = parseApiVersion(apiVersion);
  if (!ver && (!group || group === def.group)) {
    group = def.group;
    ver = version;
  }
  return { obj, group, version: ver, kind: typeof obj.kind === 'string' && obj.kind ? obj.kind : def.kind };
}

/** Reports unknown fields and type errors as the `fieldValidation` mode asks (`cannotHandle` words a failure). */
function checkFields(def: ResourceDef, version: string, obj: unknown, mode: Mode, warnings: string[], cannotHandle: (why: string) => ApiError): void {
  // Unknown fields are dropped as upstream's typed decoding drops them (Warn and Ignore store the rest).
  const { unknownFields, typeErrors } = def.checkFields ? def.checkFields(obj, version, true) : checkAgainstSchema({ group: def.group, version, kind: def.kind }, obj, true);
  if (typeErrors.length) throw cannotHandle(typeErrors[0]);
  if (!unknownFields.length || mode === 'Ignore') return;
  const msgs = unknownFields.map((f: string) => `unknown field "${f}"`);
  if (mode === 'Strict') throw cannotHandle(`strict decoding error: ${msgs.join(', ')}`);
  warnings.push(...msgs);
}

export function decodeObject(reg: Registry, def: ResourceDef, version: string, req: FastifyRequest, mode: Mode, warnings: string[]): KObject {
  const body = readBody(def, version, req);
  const { obj, kind } = body;
  auditOf(req)?.recordRequestObject(obj);
  const bodyGv = apiVersionOf(body.group, body.version);
  const cannotHandle = (why: string) => badRequest(`${kind} in version "${body.version}" cannot be handled as a ${def.kind}: ${why}`);
  const declared = reg.findByKind(body.group, kind);
  if (!declared || !servedVersions(declared).includes(body.version)) {
    throw cannotHandle(`no kind "${kind}" is registered for version "${bodyGv}" in scheme "${schemeName}"`);
  }
  if (kind !== def.kind || internalPackage(body.group) !== internalPackage(def.group)) {
    throw cannotHandle(`converting (${body.version}.${kind}) to (${internalPackage(def.group)}.${def.kind}): unknown conversion`);
  }
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isRecord(obj.metadata)) throw cannotHandle(`json: cannot unmarshal ${jsonKind(obj.metadata)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`);
  // Decoded as the version the body declares; a served version other than the URL's is refused after.
  checkFields(def, body.version, obj, mode, warnings, cannotHandle);
  const want = apiVersionOf(def.group, version);
  if (bodyGv !== want) throw badRequest(`the API version in the data (${bodyGv}) does not match the expected API version (${want})`);
  obj.apiVersion = want;
  obj.kind = def.kind;
  return toStorage(def, version, obj);
}

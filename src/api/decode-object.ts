// Turns a request body into an object of the expected kind in storage form, applying fieldValidation.
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../machinery/errors.js';
import { apiVersionOf, type KObject } from '../machinery/types.js';
import type { ResourceDef } from '../registry/resource.js';
import { checkAgainstSchema } from '../registry/validation/schema.js';
import { objectBody } from './body.js';
import { toStorage } from './output.js';

export function checkKind(def: ResourceDef, version: string, obj: KObject, expectKind = def.kind): void {
  const want = apiVersionOf(def.group, version);
  if (obj.kind && obj.kind !== expectKind) {
    throw badRequest(`${obj.kind} in version "${version}" cannot be handled as a ${expectKind}: no kind "${obj.kind}" is registered for version "${want}" in scheme "bonsai"`);
  }
  if (obj.apiVersion && obj.apiVersion !== want) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${want})`);
  }
}

/** Reports unknown fields and type errors as the `fieldValidation` mode asks. */
export function validateFields(def: ResourceDef, version: string, obj: unknown, mode: 'Strict' | 'Warn' | 'Ignore', warnings: string[], kind = def.kind, nullsAreAbsent = true): void {
  // Unknown fields are dropped as upstream's typed decoding drops them (Warn and Ignore store the rest).
  // An apply configuration keeps its nulls: there they mean "this manager sets the field to nothing".
  const { unknownFields, typeErrors } = checkAgainstSchema({ group: def.group, version, kind }, obj, true, nullsAreAbsent);
  if (typeErrors.length) throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${typeErrors.join(', ')}`);
  if (!unknownFields.length || mode === 'Ignore') return;
  const msgs = unknownFields.map((f: string) => `unknown field "${f}"`);
  if (mode === 'Strict') throw badRequest(`strict decoding error: ${msgs.join(', ')}`);
  warnings.push(...msgs);
}

export function decodeObject(def: ResourceDef, version: string, req: FastifyRequest, mode: 'Strict' | 'Warn' | 'Ignore', warnings: string[]): KObject {
  const obj = objectBody(req.body as Buffer | undefined, req.headers['content-type']);
  checkKind(def, version, obj);
  validateFields(def, version, obj, mode, warnings);
  obj.apiVersion = apiVersionOf(def.group, version);
  obj.kind = def.kind;
  return toStorage(def, version, obj);
}

// Decodes Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`): the 4 bytes `k8s\0`,
// then a runtime.Unknown envelope {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType} whose `raw`
// is the object encoded per k8s.io/api generated.proto. The result is the object's JSON form.
// Nothing is loaded at import time: protobufjs and the .proto files of a group/version (plus their imports)
// load on first use into one shared root.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Root, Type } from 'protobufjs';
import { ApiError, badRequest } from '../machinery/errors.js';
import { parseApiVersion, type KObject } from '../machinery/types.js';
import { getOwn } from '../util/own.js';
import { protoDir } from '../util/paths.js';
import { convertMessage } from './protobuf-json.js';
import { decodeMessage } from './protobuf-decode.js';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** API group → proto folder (Go import path, without the version). */
const GROUP_DIRS: Record<string, string> = {
  '': 'k8s.io/api/core',
  'admission.k8s.io': 'k8s.io/api/admission',
  'admissionregistration.k8s.io': 'k8s.io/api/admissionregistration',
  'apidiscovery.k8s.io': 'k8s.io/api/apidiscovery',
  'internal.apiserver.k8s.io': 'k8s.io/api/apiserverinternal',
  apps: 'k8s.io/api/apps',
  'authentication.k8s.io': 'k8s.io/api/authentication',
  'authorization.k8s.io': 'k8s.io/api/authorization',
  autoscaling: 'k8s.io/api/autoscaling',
  batch: 'k8s.io/api/batch',
  'certificates.k8s.io': 'k8s.io/api/certificates',
  'coordination.k8s.io': 'k8s.io/api/coordination',
  'discovery.k8s.io': 'k8s.io/api/discovery',
  'events.k8s.io': 'k8s.io/api/events',
  extensions: 'k8s.io/api/extensions',
  'flowcontrol.apiserver.k8s.io': 'k8s.io/api/flowcontrol',
  'imagepolicy.k8s.io': 'k8s.io/api/imagepolicy',
  'networking.k8s.io': 'k8s.io/api/networking',
  'node.k8s.io': 'k8s.io/api/node',
  policy: 'k8s.io/api/policy',
  'rbac.authorization.k8s.io': 'k8s.io/api/rbac',
  'resource.k8s.io': 'k8s.io/api/resource',
  'scheduling.k8s.io': 'k8s.io/api/scheduling',
  'storage.k8s.io': 'k8s.io/api/storage',
  'storagemigration.k8s.io': 'k8s.io/api/storagemigration',
  'apiextensions.k8s.io': 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions',
  'metrics.k8s.io': 'k8s.io/metrics/pkg/apis/metrics',
  'meta.k8s.io': 'k8s.io/apimachinery/pkg/apis/meta',
};
const META_DIR = 'k8s.io/apimachinery/pkg/apis/meta/v1';

type ProtobufModule = typeof import('protobufjs');
let pb: ProtobufModule | undefined;
let root: Root | undefined;
const loadedFiles = new Set<string>();

function sharedRoot(): { pb: ProtobufModule; root: Root } {
  if (!pb || !root) {
    pb = createRequire(import.meta.url)('protobufjs') as ProtobufModule;
    const r = new pb.Root();
    r.resolvePath = (_origin: string, target: string) => (target.startsWith('/') ? target : join(protoDir, target));
    root = r;
  }
  return { pb, root };
}

/** Loads `<dir>/generated.proto` (and its imports) once; false when no such file exists. */
function loadDir(dir: string): Root | undefined {
  const { root: r } = sharedRoot();
  if (!loadedFiles.has(dir)) {
    const file = join(protoDir, dir, 'generated.proto');
    if (!existsSync(file)) return undefined;
    r.loadSync(file, { keepCase: true });
    r.resolveAll();
    loadedFiles.add(dir);
  }
  return r;
}

function lookupMessage(r: Root, fullName: string): Type | undefined {
  const found = r.lookup(fullName);
  return found && 'fieldsArray' in found && 'decode' in found ? (found as Type) : undefined;
}

/** The message type for apiVersion/kind: the group's package first, then meta.v1 (DeleteOptions, Status, ...). */
function messageFor(apiVersion: string, kind: string): Type {
  const { group, version } = parseApiVersion(apiVersion);
  // The group comes from the client: only the table's own keys name a folder (not `constructor`, `__proto__`).
  const base = getOwn(GROUP_DIRS, group) as string | undefined;
  if (base === undefined || !/^v\d+((alpha|beta)\d+)?$/.test(version) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);
  }
  const dir = `${base}/${version}`;
  const r = loadDir(dir);
  const t = r && lookupMessage(r, `${dir.replace(/\//g, '.').replace(/-/g, '_')}.${kind}`);
  if (t) return t;
  const m = loadDir(META_DIR);
  const mt = m && lookupMessage(m, `${META_DIR.replace(/\//g, '.')}.${kind}`);
  if (mt) return mt;
  throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`);
}

// ---- envelope: a strict hand-rolled reader, so nothing is skipped silently ----

class WireReader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end = buf.length) {}
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw badRequest('truncated protobuf body');
      const b = this.buf[this.pos++];
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      else if (b & 0x7f) throw badRequest('varint overflow in protobuf body');
      if (!(b & 0x80)) return result;
      shift += 7;
      if (shift > 63) throw badRequest('varint overflow in protobuf body');
    }
  }
  bytes(): Buffer {
    const len = this.varint();
    if (len > this.end - this.pos) throw badRequest('truncated protobuf body');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  /** Reads a tag; only length-delimited fields (wire type 2) occur in the envelope. */
  field(known: number): number {
    const tag = this.varint();
    const num = Math.floor(tag / 8);
    if (tag % 8 !== 2 || num < 1 || num > known) throw badRequest(`unexpected field ${num} (wire type ${tag % 8}) in protobuf envelope`);
    return num;
  }
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
}

function readEnvelope(body: Buffer): Envelope {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw badRequest('protobuf body does not start with the "k8s\\x00" prefix');
  }
  const env: Envelope = { apiVersion: '', kind: '', raw: Buffer.alloc(0), contentEncoding: '' };
  const r = new WireReader(body);
  r.pos = MAGIC.length;
  while (r.pos < r.end) {
    const num = r.field(4);
    const value = r.bytes();
    if (num === 1) {
      const t = new WireReader(value);
      while (t.pos < t.end) {
        const n = t.field(2);
        const s = t.bytes().toString('utf8');
        if (n === 1) env.apiVersion = s;
        else env.kind = s;
      }
    } else if (num === 2) env.raw = value;
    else if (num === 3) env.contentEncoding = value.toString('utf8');
  }
  return env;
}

/** Decodes an envelope found `depth` messages deep (a RawExtension may hold another envelope). */
function decodeObject(body: Buffer, depth = 0): Record<string, unknown> {
  const env = readEnvelope(body);
  if (!env.apiVersion || !env.kind) throw badRequest('protobuf envelope has no apiVersion/kind');
  if (env.contentEncoding) throw badRequest(`unsupported protobuf contentEncoding "${env.contentEncoding}"`);
  const type = messageFor(env.apiVersion, env.kind);
  const msg = decodeMessage(type, env.raw, depth);
  const json = convertMessage(type, msg, decodeObject, depth);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw badRequest(`kind "${env.kind}" cannot be decoded as an object`);
  }
  return { apiVersion: env.apiVersion, kind: env.kind, ...(json as Record<string, unknown>) };
}

/**
 * Decodes `k8s\0` + runtime.Unknown into the object's JSON form (apiVersion, kind, metadata, ...).
 * Throws ApiError 400 BadRequest for anything malformed: wrong magic, truncated, unknown apiVersion/kind,
 * trailing garbage. Never throws anything else.
 */
export function decodeProtobufBody(body: Buffer): KObject {
  try {
    return decodeObject(body) as KObject;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw badRequest(`unable to decode protobuf body: ${why}`);
  }
}

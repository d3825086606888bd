// /openapi/v2 as the gnostic openapi.v2 Document protobuf (what kubectl ≤ 1.28 downloads for validation and
// explain), plus the content negotiation and ETag kube-openapi's handler uses for that path. The protobuf is
// built from the v2 document on first request and cached until that document changes (custom resources
// published or removed: `v2DocumentBytes` then returns a new Buffer); nothing is loaded at import time.
import { createHash } from 'node:crypto';
import { v2DocumentBytes } from './documents.js';
import type { CustomOpenApiStore } from './custom-store.js';
import { documentEncoder } from './v2-protobuf-layout.js';
import { WireWriter } from './v2-protobuf-wire.js';

/** The Content-Type kube-apiserver answers with for the protobuf form (both accepted spellings map to it). */
export const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PROTOBUF_SUBTYPES = new Set(['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf']);

export type V2Format = 'json' | 'protobuf';

/**
 * Picks the served form for an Accept header like goautoneg + kube-openapi do: clauses sorted by q (stable),
 * the first clause matching application/json or a protobuf spelling (wildcards allowed, json first) wins.
 * An empty header means `*∕*`. undefined → 406.
 */
export function negotiateV2(accept: string | undefined): V2Format | undefined {
  const clauses: Array<{ type: string; sub: string; q: number }> = [];
  for (const part of (accept || '*/*').split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim());
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    let q = 1;
    for (const p of params) {
      const [k, val] = p.split('=').map((s) => s.trim());
      if (k === 'q') q = Number(val);
    }
    if (!(q > 0)) continue;
    clauses.push({ type: range.slice(0, slash).toLowerCase(), sub: range.slice(slash + 1).toLowerCase(), q });
  }
  clauses.sort((a, b) => b.q - a.q);
  for (const c of clauses) {
    if (c.type !== 'application' && c.type !== '*') continue;
    if (c.sub === 'json' || c.sub === '*') return 'json';
    if (PROTOBUF_SUBTYPES.has(c.sub)) return 'protobuf';
  }
  return undefined;
}

/** Quoted ETag shared by both forms: upper-case hex SHA-512 of the JSON document (kube-openapi's computeETag). */
export function v2ETag(custom: CustomOpenApiStore): string {
  const source = v2DocumentBytes(custom);
  if (custom.v2ETag?.source !== source) custom.v2ETag = { source, value: `"${createHash('sha512').update(source).digest('hex').toUpperCase()}"` };
  return custom.v2ETag.value;
}

/** The openapi.v2 Document protobuf of the v2 document, encoded once per version of that document (kept per server). */
export function v2ProtobufBytes(custom: CustomOpenApiStore): Buffer {
  const source = v2DocumentBytes(custom);
  if (custom.v2Protobuf?.source === source) return custom.v2Protobuf.bytes;
  const doc = JSON.parse(source.toString('utf8')) as Record<string, unknown>;
  const w = new WireWriter();
  documentEncoder(yamlText)(w, doc);
  custom.v2Protobuf = { source, bytes: w.finish() };
  return custom.v2Protobuf.bytes;
}

/** Plain words YAML 1.1 would read as something other than a string (booleans, null). */
const YAML_1_1_SPECIAL = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;
const PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

/** A YAML scalar: safe words plain, other strings double-quoted (JSON escapes are YAML escapes). */
function scalar(v: unknown): string {
  if (typeof v === 'string') return PLAIN.test(v) && !YAML_1_1_SPECIAL.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? '.inf' : v < 0 ? '-.inf' : '.nan';
  if (typeof v === 'boolean') return String(v);
  return 'null';
}

const isCollection = (v: unknown): v is object => typeof v === 'object' && v !== null && Object.keys(v).length > 0;

/** Block-style YAML lines for a non-empty array or object, each line prefixed by `indent`. */
function block(v: object, indent: string): string {
  let out = '';
  if (Array.isArray(v)) {
    for (const item of v) {
      if (!isCollection(item)) out += `${indent}- ${flow(item)}\n`;
      else out += `${indent}- ${block(item, `${indent}  `).slice(indent.length + 2)}`;
    }
    return out;
  }
  for (const [k, item] of Object.entries(v)) {
    out += isCollection(item) ? `${indent}${scalar(k)}:\n${block(item, `${indent}  `)}` : `${indent}${scalar(k)}: ${flow(item)}\n`;
  }
  return out;
}
const flow = (v: unknown): string => (Array.isArray(v) ? '[]' : typeof v === 'object' && v !== null ? '{}' : scalar(v));

/** The YAML text gnostic stores in `Any.yaml` for a JSON value (block style, trailing newline). */
export function yamlText(v: unknown): string {
  return isCollection(v) ? block(v, '') : `${flow(v)}\n`;
}

// The messages of etcd's KV and Watch services the store uses (Txn, Range, Compact; the watch stream), in protobuf,
// encoded and decoded with protobufjs from the subset of etcd's `etcdserverpb` / `mvccpb` schema below (field names
// and numbers are etcd's API), but for a write's transaction, which is encoded by hand (one per write: the hot path).
// protobufjs is loaded, and the schema parsed, on the first call.
import { createRequire } from 'node:module';
import type { Type } from 'protobufjs';
import type { KV, TxnKind, WatchEvent } from './protocol.js';

export const etcdProtoSchema = `
syntax = "proto3";
package etcdserverpb;
message ResponseHeader { uint64 cluster_id = 1; uint64 member_id = 2; int64 revision = 3; uint64 raft_term = 4; }
message KeyValue { bytes key = 1; int64 create_revision = 2; int64 mod_revision = 3; int64 version = 4; bytes value = 5; int64 lease = 6; }
message RangeRequest { bytes key = 1; bytes range_end = 2; int64 limit = 3; int64 revision = 4; bool serializable = 7; bool keys_only = 8; }
message RangeResponse { ResponseHeader header = 1; repeated KeyValue kvs = 2; bool more = 3; int64 count = 4; }
message PutRequest { bytes key = 1; bytes value = 2; }
message DeleteRangeRequest { bytes key = 1; bytes range_end = 2; }
message RequestOp { oneof request { RangeRequest request_range = 1; PutRequest request_put = 2; DeleteRangeRequest request_delete_range = 3; } }
message ResponseOp { oneof response { RangeResponse response_range = 1; } }
message Compare {
  enum CompareResult { EQUAL = 0; GREATER = 1; LESS = 2; NOT_EQUAL = 3; }
  enum CompareTarget { VERSION = 0; CREATE = 1; MOD = 2; VALUE = 3; LEASE = 4; }
  CompareResult result = 1; CompareTarget target = 2; bytes key = 3;
  oneof target_union { int64 version = 4; int64 create_revision = 5; int64 mod_revision = 6; }
}
message TxnRequest { repeated Compare compare = 1; repeated RequestOp success = 2; repeated RequestOp failure = 3; }
message TxnResponse { ResponseHeader header = 1; bool succeeded = 2; repeated ResponseOp responses = 3; }
message CompactionRequest { int64 revision = 1; bool physical = 2; }
message CompactionResponse { ResponseHeader header = 1; }
message Event { enum EventType { PUT = 0; DELETE = 1; } EventType type = 1; KeyValue kv = 2; KeyValue prev_kv = 3; }
message WatchCreateRequest { bytes key = 1; bytes range_end = 2; int64 start_revision = 3; bool progress_notify = 4; bool prev_kv = 6; }
message WatchProgressRequest {}
message WatchRequest { oneof request_union { WatchCreateRequest create_request = 1; WatchProgressRequest progress_request = 3; } }
message WatchResponse {
  ResponseHeader header = 1; int64 watch_id = 2; bool created = 3; bool canceled = 4; int64 compact_revision = 5;
  string cancel_reason = 6; bool fragment = 7; repeated Event events = 11;
}
`;

interface Types {
  txnRequest: Type;
  txnResponse: Type;
  rangeRequest: Type;
  rangeResponse: Type;
  compactionRequest: Type;
  compactionResponse: Type;
  watchRequest: Type;
  watchResponse: Type;
}

let types: Types | undefined;

function load(): Types {
  if (types) return types;
  const pb = createRequire(import.meta.url)('protobufjs') as typeof import('protobufjs');
  const root = pb.parse(etcdProtoSchema, { keepCase: true }).root;
  const t = (name: string) => root.lookupType(`etcdserverpb.${name}`);
  types = {
    txnRequest: t('TxnRequest'), txnResponse: t('TxnResponse'), rangeRequest: t('RangeRequest'), rangeResponse: t('RangeResponse'),
    compactionRequest: t('CompactionRequest'), compactionResponse: t('CompactionResponse'),
    watchRequest: t('WatchRequest'), watchResponse: t('WatchResponse'),
  };
  return types;
}

/** An int64 as decoded (a number, or a Long when protobufjs has one), as a number (revisions stay far below 2^53). */
function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { toNumber?: unknown }).toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return Number(v ?? 0);
}

interface WireKV { key?: Uint8Array; value?: Uint8Array; mod_revision?: unknown; create_revision?: unknown }
interface WireHeader { revision?: unknown }

/** UTF-8 text of a bytes field (protobufjs gives an absent one as an empty array). */
function text(b: Uint8Array | undefined): string {
  if (!b || b.length === 0) return '';
  return Buffer.isBuffer(b) ? b.toString() : Buffer.from(b).toString();
}

function kvOf(kv: WireKV): KV {
  return { key: text(kv.key), value: text(kv.value), mod: num(kv.mod_revision), create: num(kv.create_revision) };
}

/** Bytes a varint of `n` (a non-negative safe integer) takes. */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes `n` as a varint at `at`; returns the offset after it. */
function putVarint(b: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    b[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  b[at++] = n;
  return at;
}

/** A length-delimited field's size: tag, length, body. */
const fieldSize = (body: number) => 1 + varintSize(body) + body;

/**
 * A write as one transaction: the key must not exist (create) or be at revision `expect`; else its current value.
 * Encoded by hand, straight into one buffer (a write's value is UTF-8-encoded in place): this runs once per write,
 * where protobufjs's general encoder cost several times as much. Field numbers are etcd's (see the schema above);
 * the unit tests decode it with protobufjs and that schema.
 */
export function encodeTxn(kind: TxnKind, key: string, value: string | undefined, expect: number | undefined): Uint8Array {
  const keyBytes = Buffer.byteLength(key);
  const keyField = fieldSize(keyBytes); // key = 1 (Put, DeleteRange, Range) or 3 (Compare): tag 1 byte either way
  const revision = kind === 'create' ? 0 : expect ?? 0;
  // Compare: target = 2 (CREATE 1 or MOD 2), key = 3, create_revision = 5 or mod_revision = 6 (set even when 0: a oneof).
  const compare = 2 + keyField + 1 + varintSize(revision);
  const valueBytes = kind === 'delete' ? 0 : Buffer.byteLength(value ?? '');
  // success: RequestOp { request_put = 2 { key = 1, value = 2 } } or { request_delete_range = 3 { key = 1 } }.
  const op = kind === 'delete' ? keyField : keyField + fieldSize(valueBytes);
  const success = fieldSize(op);
  // failure: RequestOp { request_range = 1 { key = 1 } }.
  const failure = fieldSize(keyField);
  const b = Buffer.allocUnsafe(fieldSize(compare) + fieldSize(success) + fieldSize(failure));
  const putKey = (at: number, tag: number) => {
    b[at] = tag;
    at = putVarint(b, at + 1, keyBytes);
    return at + b.write(key, at);
  };
  let at = 0;
  b[at++] = 0x0a; // compare = 1
  at = putVarint(b, at, compare);
  b[at++] = 0x10; // target = 2
  b[at++] = kind === 'create' ? 1 : 2;
  at = putKey(at, 0x1a); // key = 3
  b[at++] = kind === 'create' ? 0x28 : 0x30; // create_revision = 5, mod_revision = 6
  at = putVarint(b, at, revision);
  b[at++] = 0x12; // success = 2
  at = putVarint(b, at, success);
  b[at++] = kind === 'delete' ? 0x1a : 0x12; // request_delete_range = 3, request_put = 2
  at = putVarint(b, at, op);
  at = putKey(at, 0x0a);
  if (kind !== 'delete') {
    b[at++] = 0x12; // value = 2
    at = putVarint(b, at, valueBytes);
    at += b.write(value ?? '', at);
  }
  b[at++] = 0x1a; // failure = 3
  at = putVarint(b, at, failure);
  b[at++] = 0x0a; // request_range = 1
  at = putVarint(b, at, keyField);
  at = putKey(at, 0x0a);
  if (at !== b.length) throw new Error(`a transaction was encoded in ${at} bytes, not ${b.length}`);
  return b;
}

export function decodeTxn(buf: Uint8Array): { revision: number; succeeded: boolean; current?: KV } {
  const t = load();
  const r = t.txnResponse.decode(buf) as { header?: WireHeader; succeeded?: boolean; responses?: { response_range?: { kvs?: WireKV[] } }[] };
  const found = r.responses?.[0]?.response_range?.kvs?.[0];
  return { revision: num(r.header?.revision), succeeded: !!r.succeeded, current: found ? kvOf(found) : undefined };
}

export interface RangeOptions { key: string; end?: string; limit?: number; revision?: number; keysOnly?: boolean }

export function encodeRange(o: RangeOptions): Uint8Array {
  const t = load();
  return t.rangeRequest.encode({
    key: Buffer.from(o.key), range_end: o.end === undefined ? undefined : Buffer.from(o.end), limit: o.limit ?? 0, revision: o.revision ?? 0, keys_only: !!o.keysOnly,
  }).finish();
}

export function decodeRange(buf: Uint8Array): { revision: number; kvs: KV[]; more: boolean } {
  const t = load();
  const r = t.rangeResponse.decode(buf) as { header?: WireHeader; kvs?: WireKV[]; more?: boolean };
  return { revision: num(r.header?.revision), kvs: (r.kvs ?? []).map(kvOf), more: !!r.more };
}

export function encodeCompaction(revision: number): Uint8Array {
  const t = load();
  return t.compactionRequest.encode({ revision, physical: false }).finish();
}

export function decodeCompaction(buf: Uint8Array): { revision: number } {
  const t = load();
  const r = t.compactionResponse.decode(buf) as { header?: WireHeader };
  return { revision: num(r.header?.revision) };
}

/** Opens the watch of `[key, end)` from `from` (0: from now), with progress notifications and previous values. */
export function encodeWatchCreate(key: string, end: string, from: number): Uint8Array {
  const t = load();
  return t.watchRequest.encode({
    create_request: { key: Buffer.from(key), range_end: Buffer.from(end), start_revision: from, progress_notify: true, prev_kv: true },
  }).finish();
}

/** Asks for a progress notification (answered with watch id -1 when it covers every watch of the stream). */
export function encodeWatchProgress(): Uint8Array {
  const t = load();
  return t.watchRequest.encode({ progress_request: {} }).finish();
}

export interface WatchAnswer {
  revision: number;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WatchEvent[];
}

interface WireEvent { type?: number; kv?: WireKV; prev_kv?: WireKV }

export function decodeWatchResponse(buf: Uint8Array): WatchAnswer {
  const t = load();
  const r = t.watchResponse.decode(buf) as {
    header?: WireHeader; watch_id?: unknown; created?: boolean; canceled?: boolean; compact_revision?: unknown; cancel_reason?: string; events?: WireEvent[];
  };
  return {
    revision: num(r.header?.revision), watchId: num(r.watch_id), created: !!r.created, canceled: !!r.canceled,
    compactRevision: num(r.compact_revision), cancelReason: r.cancel_reason ?? '',
    events: (r.events ?? []).map((e) => ({ type: e.type === 1 ? 'DELETE' : 'PUT', kv: kvOf(e.kv ?? {}), prev: e.prev_kv ? kvOf(e.prev_kv) : undefined })),
  };
}

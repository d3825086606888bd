// What the etcd store asks its connection (connection.ts) and what comes back. Keys and values are strings (UTF-8),
// revisions numbers (etcd revisions stay far below 2^53).

export type TxnKind = 'create' | 'update' | 'delete';

export type Request =
  | { op: 'txn'; kind: TxnKind; key: string; value?: string; expect?: number }
  /** `keysOnly`: without values (a consistent read needs only the key's mod_revision). */
  | { op: 'range'; key: string; end: string; revision?: number; limit: number; keysOnly?: boolean }
  | { op: 'revision' }
  | { op: 'compact'; revision: number };

export interface KV {
  key: string;
  value: string;
  mod: number;
  create: number;
}

export type Reply =
  | { ok: true; revision: number; succeeded?: boolean; current?: KV; kvs?: KV[]; more?: boolean }
  | { ok: false; error: string; compacted?: boolean };

export interface WatchEvent {
  type: 'PUT' | 'DELETE';
  kv: KV;
  prev?: KV;
}

/** Instructions for the connection's watch (no reply). */
export type Control = { op: 'watch'; from: number } | { op: 'progress' };

/** What the connection tells the store, in order (what one turn of the event loop brought, together). */
export type Notice =
  | { kind: 'events'; revision: number; events: WatchEvent[] }
  /** `requested`: the answer to a progress request (etcd 3.4 before 3.4.25 may send it ahead of pending events). */
  | { kind: 'progress'; revision: number; requested: boolean }
  | { kind: 'watch-lost'; compacted: number; message: string }
  | { kind: 'log'; message: string };

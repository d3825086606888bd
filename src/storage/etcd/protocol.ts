// Messages between the etcd store (main thread) and its worker (which owns the gRPC client). Keys and values
// travel as strings (UTF-8), revisions as numbers (etcd revisions stay far below 2^53).

export interface WorkerInit {
  hosts: string[];
  /** Int32Array(1) the worker sets to 1 and notifies after posting a synchronous reply on `replyPort`. */
  flag: SharedArrayBuffer;
  replyPort: MessagePort;
  /** Prefix watched into the main thread's mirror. */
  prefix: string;
  /** etcd's per-call deadline (ms). */
  callTimeoutMs: number;
}

export type TxnKind = 'create' | 'update' | 'delete';

export type Request =
  | { op: 'txn'; kind: TxnKind; key: string; value?: string; expect?: number }
  /** `keysOnly`: without values (a consistent read needs only the key's mod_revision). */
  | { op: 'range'; key: string; end: string; revision?: number; limit: number; keysOnly?: boolean }
  | { op: 'revision' }
  | { op: 'compact'; revision: number };

/** A request; the main thread posts them in arrays (the calls of one turn of its event loop). */
export interface Envelope {
  id: number;
  /** Answered on the reply port (the main thread blocks on the flag) or, when false, by a 'reply' message. */
  sync: boolean;
  req: Request;
}

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

/** Control messages to the worker (no reply). */
export type Control = { op: 'watch'; from: number } | { op: 'progress' } | { op: 'close' };

/** Messages from the worker on its parent port, posted in arrays (what one turn of the worker's loop produced). */
export type Notice =
  | { kind: 'reply'; id: number; reply: Reply }
  | { kind: 'events'; revision: number; events: WatchEvent[] }
  /** `requested`: the answer to a progress request (etcd 3.4 before 3.4.25 may send it ahead of pending events). */
  | { kind: 'progress'; revision: number; requested: boolean }
  | { kind: 'watch-lost'; compacted: number; message: string }
  | { kind: 'log'; message: string }
  | { kind: 'closed' };

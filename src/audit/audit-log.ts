// The audit log: audit.k8s.io/v1 Event JSON lines (`--audit-log PATH`, `-` for stdout) at one policy level, written
// through a bounded buffer so that a slow disk never holds up a request (events past the bound are dropped, counted
// and reported once).
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Logger } from '../util/logger.js';
import type { UserInfo } from '../auth/types.js';

export const auditLevels = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof auditLevels)[number];
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export function parseAuditLevel(v: string | undefined): AuditLevel {
  const level = v ?? 'Metadata';
  if (!(auditLevels as readonly string[]).includes(level)) throw new Error(`audit level "${level}" is not one of ${auditLevels.join(', ')}`);
  return level as AuditLevel;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

/** An audit.k8s.io/v1 Event, keys in upstream's order. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  impersonatedUser?: UserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Microseconds since the epoch, from the high-resolution clock. */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** metav1.MicroTime: `2006-01-02T15:04:05.000000Z`. */
export function microTime(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString(); // ...T15:04:05.123Z
  return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

/** The user as an audit event records it (authentication.k8s.io/v1 UserInfo). */
export function auditUser(u: UserInfo): UserInfo {
  const out: UserInfo = { username: u.username } as UserInfo;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** At most this many bytes wait for the disk; events beyond are dropped. */
const maxBufferedBytes = 8 * 1024 * 1024;

export class AuditLog {
  private readonly out: Writable;
  private readonly ownStream: WriteStream | undefined;
  private dropped = 0;
  private warned = false;
  private closed = false;

  constructor(readonly path: string, readonly level: AuditLevel, private readonly log: Logger) {
    if (path === '-') this.out = process.stdout;
    else {
      // Opened now, so that a path that cannot be written is refused at start-up.
      let fd: number;
      try {
        fd = openSync(path, 'a', 0o600);
      } catch (e) {
        throw new Error(`cannot open the audit log ${path}: ${(e as Error).message}`);
      }
      this.ownStream = createWriteStream(path, { fd });
      this.ownStream.on('error', (err) => {
        if (!this.warned) this.log.error({ err, path }, 'audit log: writing failed; events are dropped');
        this.warned = true;
        this.closed = true;
      });
      this.out = this.ownStream;
    }
  }

  get enabled(): boolean {
    return this.level !== 'None' && !this.closed;
  }

  atLeast(level: AuditLevel): boolean {
    return auditLevels.indexOf(this.level) >= auditLevels.indexOf(level);
  }

  write(event: AuditEvent): void {
    if (!this.enabled) return;
    if (this.out.writableLength > maxBufferedBytes) {
      this.dropped++;
      if (!this.warned) {
        this.warned = true;
        this.log.warn({ path: this.path }, 'audit log: the disk does not keep up; events are being dropped');
      }
      return;
    }
    let line: string;
    try {
      line = `${JSON.stringify(event)}\n`;
    } catch {
      return; // a request object that cannot be serialised (never from JSON input)
    }
    this.out.write(line);
  }

  /** Flushes what is buffered and closes the file. */
  async close(): Promise<void> {
    if (this.closed && !this.ownStream) return;
    this.closed = true;
    if (this.dropped) this.log.warn({ path: this.path, dropped: this.dropped }, 'audit log: events were dropped');
    const s = this.ownStream;
    if (!s || s.destroyed) return;
    await new Promise<void>((resolve) => s.end(() => resolve()));
  }
}

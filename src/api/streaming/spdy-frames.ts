// SPDY/3.1 framing (draft 3.1, section 2.2): control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING,
// GOAWAY, HEADERS, WINDOW_UPDATE) and data frames, parsed from a byte stream with bounds and written back.
export const controlType = { synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goAway: 7, headers: 8, windowUpdate: 9 } as const;
export const flagFin = 0x01;
export const flagUnidirectional = 0x02;
/** RST_STREAM status codes. */
export const rstStatus = { protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5, internalError: 6, streamInUse: 8, streamAlreadyClosed: 9, frameTooLarge: 11 } as const;

export type SpdyFrame =
  | { type: 'data'; streamId: number; fin: boolean; data: Buffer }
  | { type: 'synStream'; streamId: number; associatedId: number; priority: number; fin: boolean; unidirectional: boolean; headerBlock: Buffer }
  | { type: 'synReply'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'headers'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'rstStream'; streamId: number; status: number }
  | { type: 'settings'; entries: Array<{ id: number; flags: number; value: number }> }
  | { type: 'ping'; id: number }
  | { type: 'goAway'; lastGoodStreamId: number; status: number }
  | { type: 'windowUpdate'; streamId: number; delta: number }
  | { type: 'unknown'; controlType: number };

export class SpdyProtocolError extends Error {}

export interface FrameLimits {
  /** Largest data frame payload accepted. */
  maxDataFrame: number;
  /** Largest control frame payload accepted (header blocks included). */
  maxControlFrame: number;
  /** SETTINGS entries at most. */
  maxSettings: number;
}

export const defaultFrameLimits: FrameLimits = { maxDataFrame: 1 << 20, maxControlFrame: 64 * 1024, maxSettings: 32 };

const streamIdOf = (b: Buffer, at: number) => b.readUInt32BE(at) & 0x7fffffff;

function need(payload: Buffer, n: number, what: string): void {
  if (payload.length < n) throw new SpdyProtocolError(`${what} frame too short (${payload.length} bytes)`);
}

function parseControl(type: number, flags: number, p: Buffer, limits: FrameLimits): SpdyFrame {
  const fin = (flags & flagFin) !== 0;
  switch (type) {
    case controlType.synStream:
      need(p, 10, 'SYN_STREAM');
      return { type: 'synStream', streamId: streamIdOf(p, 0), associatedId: streamIdOf(p, 4), priority: p[8] >> 5, fin, unidirectional: (flags & flagUnidirectional) !== 0, headerBlock: p.subarray(10) };
    case controlType.synReply:
      need(p, 4, 'SYN_REPLY');
      return { type: 'synReply', streamId: streamIdOf(p, 0), fin, headerBlock: p.subarray(4) };
    case controlType.headers:
      need(p, 4, 'HEADERS');
      return { type: 'headers', streamId: streamIdOf(p, 0), fin, headerBlock: p.subarray(4) };
    case controlType.rstStream:
      need(p, 8, 'RST_STREAM');
      return { type: 'rstStream', streamId: streamIdOf(p, 0), status: p.readUInt32BE(4) };
    case controlType.settings: {
      need(p, 4, 'SETTINGS');
      const n = p.readUInt32BE(0);
      if (n > limits.maxSettings || p.length !== 4 + 8 * n) throw new SpdyProtocolError(`SETTINGS frame with ${n} entries in ${p.length} bytes`);
      const entries = [];
      for (let i = 0; i < n; i++) {
        const at = 4 + 8 * i;
        entries.push({ flags: p[at], id: p.readUIntBE(at + 1, 3), value: p.readUInt32BE(at + 4) });
      }
      return { type: 'settings', entries };
    }
    case controlType.ping:
      need(p, 4, 'PING');
      return { type: 'ping', id: p.readUInt32BE(0) };
    case controlType.goAway:
      need(p, 4, 'GOAWAY');
      return { type: 'goAway', lastGoodStreamId: streamIdOf(p, 0), status: p.length >= 8 ? p.readUInt32BE(4) : 0 };
    case controlType.windowUpdate:
      need(p, 8, 'WINDOW_UPDATE');
      return { type: 'windowUpdate', streamId: streamIdOf(p, 0), delta: p.readUInt32BE(4) & 0x7fffffff };
    default:
      return { type: 'unknown', controlType: type };
  }
}

/** Incremental parser: push bytes as they arrive, get whole frames back. Holds at most one frame's bytes. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly limits: FrameLimits = defaultFrameLimits) {}

  /** Bytes held waiting for the rest of a frame. */
  get pending(): number {
    return this.buf.length;
  }

  push(chunk: Buffer): SpdyFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: SpdyFrame[] = [];
    while (this.buf.length >= 8) {
      const control = (this.buf[0] & 0x80) !== 0;
      const flags = this.buf[4];
      const length = this.buf.readUIntBE(5, 3);
      if (control) {
        const version = this.buf.readUInt16BE(0) & 0x7fff;
        if (version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
        if (length > this.limits.maxControlFrame) throw new SpdyProtocolError(`control frame of ${length} bytes exceeds ${this.limits.maxControlFrame}`);
      } else if (length > this.limits.maxDataFrame) throw new SpdyProtocolError(`data frame of ${length} bytes exceeds ${this.limits.maxDataFrame}`);
      if (this.buf.length < 8 + length) break;
      const payload = Buffer.from(this.buf.subarray(8, 8 + length));
      if (control) out.push(parseControl(this.buf.readUInt16BE(2), flags, payload, this.limits));
      else out.push({ type: 'data', streamId: streamIdOf(this.buf, 0), fin: (flags & flagFin) !== 0, data: payload });
      this.buf = this.buf.subarray(8 + length);
    }
    return out;
  }
}

function control(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(type, 2);
  head[4] = flags;
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

const u32 = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
};

export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  if (data.length > 0xffffff) throw new RangeError('data frame too large');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head[4] = fin ? flagFin : 0;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

export function synStreamFrame(streamId: number, headerBlock: Buffer, fin = false, associatedId = 0, priority = 0): Buffer {
  return control(controlType.synStream, fin ? flagFin : 0, Buffer.concat([u32(streamId, associatedId), Buffer.from([(priority & 7) << 5, 0]), headerBlock]));
}

export function synReplyFrame(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  return control(controlType.synReply, fin ? flagFin : 0, Buffer.concat([u32(streamId), headerBlock]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  return control(controlType.rstStream, 0, u32(streamId, status));
}

export function pingFrame(id: number): Buffer {
  return control(controlType.ping, 0, u32(id));
}

export function goAwayFrame(lastGoodStreamId: number, status = 0): Buffer {
  return control(controlType.goAway, 0, u32(lastGoodStreamId, status));
}

export function windowUpdateFrame(streamId: number, delta: number): Buffer {
  return control(controlType.windowUpdate, 0, u32(streamId, delta & 0x7fffffff));
}

export function settingsFrame(entries: Array<{ id: number; value: number; flags?: number }>): Buffer {
  const b = Buffer.alloc(4 + 8 * entries.length);
  b.writeUInt32BE(entries.length, 0);
  entries.forEach((e, i) => {
    b[4 + 8 * i] = e.flags ?? 0;
    b.writeUIntBE(e.id, 5 + 8 * i, 3);
    b.writeUInt32BE(e.value >>> 0, 8 + 8 * i);
  });
  return control(controlType.settings, 0, b);
}

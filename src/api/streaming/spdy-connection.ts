// One SPDY/3.1 server connection over a byte transport (a TCP socket after the HTTP upgrade, or a WebSocket
// tunnel): streams the client opens are answered with SYN_REPLY and handed to `onStream`; data frames go to the
// stream's bounded queue (reading pauses while it is full), PING is echoed, GOAWAY and RST_STREAM end things.
// kubectl's SPDY library does no flow control: WINDOW_UPDATE and SETTINGS are read and ignored, and what we send
// is bounded by the transport's backlog instead (a client that stops reading is dropped).
import { ByteQueue } from './byte-queue.js';
import { dataFrame, FrameReader, goAwayFrame, pingFrame, rstStatus, rstStreamFrame, SpdyProtocolError, synReplyFrame, type SpdyFrame } from './spdy-frames.js';
import { encodeHeaderBlock, HeaderCompressor, HeaderDecompressor, parseHeaderBlock } from './spdy-headers.js';

/** The byte transport under a connection. */
export interface Transport {
  write(data: Buffer): void;
  /** Bytes written and not yet sent. */
  backlog(): number;
  pause(): void;
  resume(): void;
  /** Ends the transport gracefully (what was written is sent first). */
  end(): void;
  /** Cuts the transport at once (the client stopped reading). */
  destroy(): void;
}

export interface ConnectionLimits {
  maxStreams: number;
  /** Unread bytes a stream may hold before reading from the client pauses. */
  streamBuffer: number;
  /** Unsent bytes past which the client is deemed gone. */
  maxBacklog: number;
  /** Largest data frame we send. */
  sendChunk: number;
  /** No frame either way for this long ends the connection. */
  idleMs: number;
}

export const defaultConnectionLimits: ConnectionLimits = { maxStreams: 32, streamBuffer: 256 * 1024, maxBacklog: 4 << 20, sendChunk: 32 * 1024, idleMs: 30 * 60_000 };

export class SpdyStream {
  /** What the client sends on this stream; ends at its FIN or RST_STREAM. */
  readonly input: ByteQueue;
  private localClosed = false;
  /** The client sent FIN (or reset the stream). */
  remoteEnded = false;

  constructor(readonly conn: SpdyConnection, readonly id: number, readonly headers: Map<string, string>, buffer: number) {
    this.input = new ByteQueue(buffer);
  }

  get closed(): boolean {
    return this.localClosed;
  }

  write(data: Buffer | string): void {
    if (this.localClosed) return;
    this.conn.sendData(this.id, typeof data === 'string' ? Buffer.from(data) : data, false);
  }

  /** Half-closes our side (FIN). */
  end(): void {
    if (this.localClosed) return;
    this.localClosed = true;
    this.conn.sendData(this.id, Buffer.alloc(0), true);
  }

  reset(status: number = rstStatus.cancel): void {
    this.localClosed = true;
    this.input.discard();
    this.conn.resetStream(this.id, status);
  }
}

export class SpdyConnection {
  private readonly reader = new FrameReader();
  private readonly inflater = new HeaderDecompressor();
  private readonly deflater = new HeaderCompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private lastStreamId = 0;
  private closed = false;
  private idle: NodeJS.Timeout | undefined;
  private readonly closeListeners: Array<() => void> = [];

  constructor(private readonly transport: Transport, private readonly onStream: (s: SpdyStream) => void, readonly limits: ConnectionLimits = defaultConnectionLimits) {
    this.touch();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private touch(): void {
    if (this.closed) return;
    if (this.idle) this.idle.refresh();
    else {
      this.idle = setTimeout(() => this.shutdown(), this.limits.idleMs);
      this.idle.unref();
    }
  }

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    this.touch();
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.shutdown(1);
      return;
    }
    for (const f of frames) {
      this.queued++;
      if (this.queued === 16) this.transport.pause();
      this.chain = this.chain.then(() => this.handle(f)).catch(() => this.shutdown(1)).finally(() => {
        this.queued--;
        if (this.queued === 0 && !this.closed) this.transport.resume();
      });
    }
  }

  private async handle(f: SpdyFrame): Promise<void> {
    if (this.closed) return;
    switch (f.type) {
      case 'synStream': {
        // The header block is always inflated: the zlib stream is shared by every block of the connection.
        const headers = parseHeaderBlock(await this.inflater.decompress(f.headerBlock));
        if (f.streamId === 0 || f.streamId % 2 === 0 || f.streamId <= this.lastStreamId) throw new SpdyProtocolError(`invalid stream id ${f.streamId}`);
        this.lastStreamId = f.streamId;
        if (this.streams.size >= this.limits.maxStreams) return this.resetStream(f.streamId, rstStatus.refusedStream);
        const s = new SpdyStream(this, f.streamId, headers, this.limits.streamBuffer);
        this.streams.set(f.streamId, s);
        this.send(synReplyFrame(f.streamId, this.deflater.compress(encodeHeaderBlock([]))));
        if (f.fin) this.remoteEnd(s);
        this.onStream(s);
        return;
      }
      case 'synReply':
      case 'headers':
        await this.inflater.decompress(f.headerBlock);
        return;
      case 'data': {
        const s = this.streams.get(f.streamId);
        if (!s) return;
        await s.input.push(f.data);
        if (f.fin) this.remoteEnd(s);
        return;
      }
      case 'rstStream': {
        const s = this.streams.get(f.streamId);
        if (!s) return;
        this.streams.delete(f.streamId);
        s.input.discard();
        return;
      }
      case 'ping':
        // Client-initiated pings are odd; answer them, ignore echoes of ours.
        if (f.id % 2 === 1) this.send(pingFrame(f.id));
        return;
      case 'goAway':
        this.shutdown();
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE, unknown control frames: nothing to do.
    }
  }

  private send(frame: Buffer): void {
    if (this.closed) return;
    if (this.transport.backlog() > this.limits.maxBacklog) {
      // A graceful end would wait for the client to read what is queued: cut the connection instead.
      this.lost();
      this.transport.destroy();
      return;
    }
    this.touch();
    this.transport.write(frame);
  }

  /** Data on a stream, cut into frames of at most `sendChunk` bytes. */
  sendData(id: number, data: Buffer, fin: boolean): void {
    for (let at = 0; at < data.length; at += this.limits.sendChunk) {
      const last = at + this.limits.sendChunk >= data.length;
      this.send(dataFrame(id, data.subarray(at, at + this.limits.sendChunk), fin && last));
    }
    if (data.length === 0) this.send(dataFrame(id, data, fin));
    const s = this.streams.get(id);
    if (fin && s?.remoteEnded) this.streams.delete(id);
  }

  private remoteEnd(s: SpdyStream): void {
    s.remoteEnded = true;
    s.input.end();
    if (s.closed) this.streams.delete(s.id);
  }

  resetStream(id: number, status: number): void {
    this.send(rstStreamFrame(id, status));
    this.streams.delete(id);
  }

  /** Ends the connection: GOAWAY, every stream's input ended, the transport closed. */
  shutdown(status = 0): void {
    if (this.closed) return;
    this.transport.write(goAwayFrame(this.lastStreamId, status));
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    for (const s of this.streams.values()) s.input.discard();
    this.streams.clear();
    this.inflater.close();
    this.transport.end();
    for (const l of this.closeListeners.splice(0)) l();
  }

  /** The transport is gone (the client closed it): like shutdown, with nothing sent. */
  lost(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    for (const s of this.streams.values()) s.input.discard();
    this.streams.clear();
    this.inflater.close();
    for (const l of this.closeListeners.splice(0)) l();
  }
}

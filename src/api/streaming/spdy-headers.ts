// SPDY/3 name/value header blocks: a 32-bit count, then each name and value after a 32-bit length, the whole
// block zlib-compressed with one stream per direction per connection, primed with the SPDY dictionary.
import { createInflate, constants, type Inflate } from 'node:zlib';
import { spdyDictionary } from './spdy-dictionary.js';
import { SpdyProtocolError } from './spdy-frames.js';

export interface HeaderLimits {
  /** Decompressed bytes of one header block at most. */
  maxBlockBytes: number;
  /** Name/value pairs at most. */
  maxPairs: number;
}

export const defaultHeaderLimits: HeaderLimits = { maxBlockBytes: 16 * 1024, maxPairs: 64 };

/** Serialises headers (names lower-cased as SPDY requires). */
export function encodeHeaderBlock(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  const parts: Buffer[] = [];
  const n = Buffer.alloc(4);
  n.writeUInt32BE(headers.length);
  parts.push(n);
  for (const [name, value] of headers) {
    for (const s of [name.toLowerCase(), value]) {
      const b = Buffer.from(s, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length);
      parts.push(len, b);
    }
  }
  return Buffer.concat(parts);
}

/** Parses a decompressed block into a Map (multiple values joined by NUL stay as sent; the first one is kept). */
export function parseHeaderBlock(block: Buffer, limits: HeaderLimits = defaultHeaderLimits): Map<string, string> {
  if (block.length < 4) throw new SpdyProtocolError('header block too short');
  const count = block.readUInt32BE(0);
  if (count > limits.maxPairs) throw new SpdyProtocolError(`header block with ${count} pairs exceeds ${limits.maxPairs}`);
  const out = new Map<string, string>();
  let at = 4;
  const str = () => {
    if (at + 4 > block.length) throw new SpdyProtocolError('truncated header block');
    const len = block.readUInt32BE(at);
    at += 4;
    if (at + len > block.length) throw new SpdyProtocolError('truncated header block');
    const s = block.toString('utf8', at, at + len);
    at += len;
    return s;
  };
  for (let i = 0; i < count; i++) {
    const name = str();
    const value = str();
    if (!name) throw new SpdyProtocolError('empty header name');
    if (!out.has(name)) out.set(name, value.split('\0')[0]);
  }
  return out;
}

function adler32(b: Buffer): number {
  let a = 1;
  let s = 0;
  for (const byte of b) {
    a = (a + byte) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

const dictionaryId = adler32(spdyDictionary);

/**
 * Our direction's zlib stream, written as stored (uncompressed) deflate blocks: a valid stream any inflater primed
 * with the dictionary reads, with no compressor state to keep. The first block carries the zlib header naming the
 * dictionary.
 */
export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      // CMF 0x78 (deflate, 32K window); FLG with FDICT set and the check bits making CMF*256+FLG a multiple of 31.
      const cmf = 0x78;
      let flg = 0x20 | (2 << 6);
      flg += 31 - ((cmf * 256 + flg) % 31);
      const id = Buffer.alloc(4);
      id.writeUInt32BE(dictionaryId);
      parts.push(Buffer.from([cmf, flg]), id);
    }
    let at = 0;
    do {
      const piece = block.subarray(at, at + 0xffff);
      const head = Buffer.alloc(5);
      head[0] = 0; // not final, stored
      head.writeUInt16LE(piece.length, 1);
      head.writeUInt16LE(~piece.length & 0xffff, 3);
      parts.push(head, piece);
      at += 0xffff;
    } while (at < block.length);
    // An empty stored block, as a sync flush ends with: inflaters (Go's among them) hand out what they hold on it.
    parts.push(Buffer.from([0, 0, 0, 0xff, 0xff]));
    return Buffer.concat(parts);
  }
}

/** The peer's zlib stream: each header block is inflated in turn (calls must not overlap), within a byte bound. */
export class HeaderDecompressor {
  private inflate: Inflate | undefined;
  private out: Buffer[] = [];
  private size = 0;
  private failure: Error | undefined;
  private waiting: ((err: Error) => void) | undefined;

  constructor(private readonly limits: HeaderLimits = defaultHeaderLimits) {}

  private stream(): Inflate {
    if (this.inflate) return this.inflate;
    const z = createInflate({ dictionary: spdyDictionary });
    z.on('data', (d: Buffer) => {
      this.size += d.length;
      if (this.size > this.limits.maxBlockBytes) this.failure ??= new SpdyProtocolError(`header block exceeds ${this.limits.maxBlockBytes} bytes`);
      else this.out.push(d);
    });
    z.on('error', (err) => {
      this.failure ??= new SpdyProtocolError(`header decompression failed: ${err.message}`);
      // A failed stream calls no flush callback: the waiting block fails here.
      this.waiting?.(this.failure);
    });
    this.inflate = z;
    return z;
  }

  decompress(compressed: Buffer): Promise<Buffer> {
    const z = this.stream();
    this.out = [];
    this.size = 0;
    return new Promise<Buffer>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting = reject;
      z.write(compressed);
      z.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.failure) return reject(this.failure);
        resolve(Buffer.concat(this.out));
      });
    }).finally(() => (this.waiting = undefined));
  }

  close(): void {
    this.inflate?.destroy();
  }
}

// A small protobuf wire-format writer for encoding one large message in a single pass: fields go into one
// growable buffer; a nested message (`fork`…`ldelim`) reserves one byte for its length and, when the body
// turns out to need a longer varint, slides the body right to make room. Below it: the proto3 field writers
// the openapi.v2 encoders share.

export class WireWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  private pos = 0;
  private readonly forks: number[] = [];

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private varint(v: number): void {
    this.reserve(10);
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }

  /** Writes an unsigned varint (tags, lengths). */
  uint32(v: number): this {
    this.varint(v >>> 0);
    return this;
  }

  bool(v: boolean): this {
    this.reserve(1);
    this.buf[this.pos++] = v ? 1 : 0;
    return this;
  }

  /** int64 as a varint; negative values take the 10-byte two's-complement form. */
  int64(v: number): this {
    if (v >= 0) {
      this.varint(v);
      return this;
    }
    this.reserve(10);
    let x = BigInt.asUintN(64, BigInt(v));
    for (let i = 0; i < 9; i++, x >>= 7n) this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
    this.buf[this.pos++] = Number(x);
    return this;
  }

  double(v: number): this {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
    return this;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): this {
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.reserve(n);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
    return this;
  }

  /** Starts a length-delimited nested message. */
  fork(): this {
    this.reserve(1);
    this.forks.push(this.pos);
    this.pos += 1;
    return this;
  }

  /** Ends the nested message started by the matching fork, writing its length in front of it. */
  ldelim(): this {
    const start = this.forks.pop()!;
    const bodyStart = start + 1;
    const len = this.pos - bodyStart;
    if (len < 0x80) {
      this.buf[start] = len;
      return this;
    }
    let size = 1;
    for (let x = len; x > 0x7f; x = Math.floor(x / 128)) size++;
    this.reserve(size - 1);
    this.buf.copyWithin(start + size, bodyStart, this.pos);
    this.pos += size - 1;
    let at = start;
    let x = len;
    while (x > 0x7f) {
      this.buf[at++] = (x & 0x7f) | 0x80;
      x = Math.floor(x / 128);
    }
    this.buf[at] = x;
    return this;
  }

  /** The encoded bytes (a copy sized to fit). */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

// Field writers used by the openapi.v2 encoders (proto3: empty strings, false and 0 are not written).
export type J = Record<string, unknown>;
export type Enc = (w: WireWriter, v: J) => void;
export type YamlText = (v: unknown) => string;

export const LEN = 2;
export const tag = (w: WireWriter, no: number, wire: number): WireWriter => w.uint32(((no << 3) | wire) >>> 0);
export const isObj = (v: unknown): v is J => typeof v === 'object' && v !== null && !Array.isArray(v);

export function str(w: WireWriter, no: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') tag(w, no, LEN).string(v);
}
export function strs(w: WireWriter, no: number, v: unknown): void {
  if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') tag(w, no, LEN).string(s);
}
export function bool(w: WireWriter, no: number, v: unknown): void {
  if (v === true) tag(w, no, 0).bool(true);
}
export function dbl(w: WireWriter, no: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) tag(w, no, 1).double(v);
}
export function i64(w: WireWriter, no: number, v: unknown): void {
  if (typeof v === 'number' && v !== 0) tag(w, no, 0).int64(Math.trunc(v));
}
export function msg(w: WireWriter, no: number, enc: Enc, v: J): void {
  tag(w, no, LEN).fork();
  enc(w, v);
  w.ldelim();
}
export function objMsg(w: WireWriter, no: number, enc: Enc, v: unknown): void {
  if (isObj(v)) msg(w, no, enc, v);
}
/** `repeated NamedX additional_properties/… = no` from a JSON object: NamedX{ name = 1; value = 2 }. */
export function named(w: WireWriter, no: number, enc: Enc, v: unknown): void {
  if (!isObj(v)) return;
  for (const [name, value] of Object.entries(v)) {
    tag(w, no, LEN).fork();
    str(w, 1, name);
    if (isObj(value)) msg(w, 2, enc, value);
    w.ldelim();
  }
}

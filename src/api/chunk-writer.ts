// Fills Buffers with the UTF-8 of the texts appended, one after another, so a streamed response is handed to the
// socket in large chunks encoded once: no string concatenation (a rope to flatten again) and no Buffer per piece.
// The chunks grow from `firstBytes` to `maxBytes` (a small list never holds a large buffer); a text longer than a
// chunk gets a buffer of its own size.

/** Bytes a UTF-16 code unit may take in UTF-8, at most (a surrogate pair: 4 bytes for 2 units). */
const maxBytesPerUnit = 3;

/** Chunks kept for reuse by one writer, at most. */
const maxSpare = 2;

export class ChunkWriter {
  private buf: Buffer;
  private off = 0;
  private next: number;
  private readonly done: Buffer[] = [];
  /** Chunks of the largest size handed back by `recycle`, filled again instead of allocating. */
  private readonly spare: Buffer[] = [];
  /** Bytes appended in all. */
  written = 0;

  constructor(firstBytes = 16 * 1024, private readonly maxBytes = 1024 * 1024) {
    this.buf = Buffer.allocUnsafe(firstBytes);
    this.next = Math.min(firstBytes * 2, maxBytes);
  }

  /** Bytes free in the chunk being filled. */
  room(): number {
    return this.buf.length - this.off;
  }

  /** Appends the UTF-8 of `s`; returns the offset (in the current chunk) where it starts. */
  text(s: string): number {
    if (!s.length) return this.off;
    if (s.length <= this.room()) {
      const room = this.room();
      const n = this.buf.write(s, this.off, room, 'utf8');
      // Writing stops before a character that does not fit: with 4 bytes still free nothing was left out; closer to
      // the end, the text's whole length in bytes tells.
      if (n <= room - 4 || n === Buffer.byteLength(s)) {
        const at = this.off;
        this.off += n;
        this.written += n;
        return at;
      }
    }
    const bytes = s.length * maxBytesPerUnit <= this.next ? 0 : Buffer.byteLength(s);
    this.rotate(Math.max(this.next, bytes));
    this.off = this.buf.write(s, 0, 'utf8');
    this.written += this.off;
    return 0;
  }

  /**
   * Appends the entries of `array`, the compact JSON text of a non-empty array (`[a,b]`): without its brackets,
   * after a comma unless `first`.
   */
  entries(array: string, first: boolean): void {
    if (array.length <= 2) return; // `[]`: no entries
    const at = this.text(array);
    // `[a,b]` becomes `a,b` (shifted back one byte) or `,a,b`.
    if (first) this.buf.copyWithin(at, at + 1, this.off);
    else this.buf[at] = 0x2c; // ','
    const drop = first ? 2 : 1;
    this.off -= drop;
    this.written -= drop;
  }

  /** Whether a chunk is filled and waiting to be taken. */
  hasChunk(): boolean {
    return this.done.length > 0;
  }

  /** Ends the chunk being filled (the next text starts a new one). */
  endChunk(): void {
    if (this.off > 0) this.rotate(this.next);
  }

  /** The chunks filled so far (the current one too when `all`: the last take, nothing is written after it), each once. */
  take(all = false): Buffer[] {
    if (all && this.off > 0) {
      this.done.push(this.buf.subarray(0, this.off));
      this.buf = Buffer.alloc(0);
      this.off = 0;
    }
    return this.done.splice(0);
  }

  /**
   * Hands back a chunk taken earlier whose bytes nobody reads any more (the socket has written it): its memory is
   * filled again by a later chunk, so a long list allocates a few chunks instead of one per 256 KiB sent. Only chunks
   * of the largest size are kept, at most `maxSpare` of them.
   */
  recycle(chunk: Buffer): void {
    if (this.spare.length >= maxSpare || chunk.byteOffset !== 0 || chunk.buffer.byteLength !== this.maxBytes) return;
    this.spare.push(Buffer.from(chunk.buffer, 0, this.maxBytes));
  }

  /** How many chunks wait to be filled again (for tests). */
  spareCount(): number {
    return this.spare.length;
  }

  private rotate(size: number): void {
    if (this.off > 0) this.done.push(this.buf.subarray(0, this.off));
    const reuse = size <= this.maxBytes && this.spare.length > 0;
    this.buf = reuse ? this.spare.pop()! : Buffer.allocUnsafe(size);
    this.off = 0;
    this.next = Math.min(this.next * 2, this.maxBytes);
  }
}

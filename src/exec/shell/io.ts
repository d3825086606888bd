// Byte streams between shell commands: bounded outputs, collected pipe buffers, and stdin.

/** Where a command writes. */
export interface Out {
  write(data: string | Buffer): void;
}

/** Where a command reads from: everything at once (bounded), or nothing. */
export interface In {
  readAll(): Promise<Buffer>;
}

/** A command's three streams. */
export interface Io {
  stdin: In;
  stdout: Out;
  stderr: Out;
}

/** The most a command may print, and the most a pipe, a command substitution or stdin buffers. */
export const maxOutputBytes = 1 << 20;

export const emptyIn: In = { readAll: async () => Buffer.alloc(0) };

export function bufferIn(data: Buffer): In {
  return { readAll: async () => data };
}

/** Collects output in memory up to `max` bytes (the rest is dropped, as a full pipe's reader would stop). */
export class Collector implements Out {
  private readonly chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  constructor(private readonly max = maxOutputBytes) {}
  write(data: string | Buffer): void {
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated ||= b.length > 0;
      return;
    }
    const part = b.length > room ? b.subarray(0, room) : b;
    if (part.length < b.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
  text(): string {
    return this.buffer().toString('utf8');
  }
}

/** An output that passes at most `max` bytes on, then drops the rest; `meter` is told of every byte written. */
export class LimitedOut implements Out {
  private left: number;
  constructor(private readonly inner: Out, max = maxOutputBytes, private readonly meter?: (bytes: number) => void) {
    this.left = max;
  }
  write(data: string | Buffer): void {
    this.meter?.(typeof data === 'string' ? Buffer.byteLength(data) : data.length);
    if (this.left <= 0) return;
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    const part = b.length > this.left ? b.subarray(0, this.left) : b;
    this.left -= part.length;
    this.inner.write(part);
  }
}

export const nullOut: Out = { write: () => undefined };

/** Reads an async byte source to its end, keeping at most `max` bytes (the rest is read and dropped). */
export async function readBounded(src: AsyncIterable<Buffer> | undefined, max = maxOutputBytes, signal?: AbortSignal): Promise<Buffer> {
  if (!src) return Buffer.alloc(0);
  const c = new Collector(max);
  for await (const chunk of src) {
    c.write(chunk);
    if (signal?.aborted) break;
  }
  return c.buffer();
}

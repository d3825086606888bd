// A bounded queue of byte chunks read as an async iterable: the protocol side pushes what the client sent and
// waits for room, the runtime side iterates. Ending it (client closed its side) ends the iteration.
export class ByteQueue implements AsyncIterable<Buffer> {
  private chunks: Buffer[] = [];
  private size = 0;
  private ended = false;
  private reader: (() => void) | undefined;
  private writers: Array<() => void> = [];

  /** `limit` bytes may wait unread; past it `push` waits. */
  constructor(readonly limit: number) {}

  get buffered(): number {
    return this.size;
  }

  /** Queues a chunk (dropped once ended); resolves when the queue is back under its limit. */
  push(chunk: Buffer): Promise<void> {
    if (this.ended || chunk.length === 0) return Promise.resolve();
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.wake();
    if (this.size <= this.limit) return Promise.resolve();
    return new Promise((resolve) => this.writers.push(resolve));
  }

  /** No more input: readers see the end after what is queued; waiting writers are released. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
    this.release();
  }

  /** Ends and drops what was queued (the client reset the stream, the session is over). */
  discard(): void {
    this.chunks = [];
    this.size = 0;
    this.end();
  }

  private wake(): void {
    const r = this.reader;
    this.reader = undefined;
    r?.();
  }

  private release(): void {
    const ws = this.writers;
    this.writers = [];
    for (const w of ws) w();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const next = this.chunks.shift();
      if (next) {
        this.size -= next.length;
        if (this.size <= this.limit) this.release();
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.reader = resolve));
    }
  }
}

// The list stream's chunked encoding (ChunkWriter) and its runs of entries serialized at once: byte for byte what
// joining each entry's JSON.stringify gives, on odd input (unicode, surrogate pairs, escapes, empty objects and
// arrays, nested arrays, large numbers), whatever the chunk boundaries.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ChunkWriter } from '../../src/api/chunk-writer.js';
import { ListStream, maxChunkBytes, type ListSpec } from '../../src/api/list-stream.js';

const odd: unknown[] = [
  {},
  { a: [] },
  { 'ключ': 'значение', emoji: '😀🎉', cjk: '漢字かな', mixed: 'a\u00e9b\u2028c\u2029d' },
  { esc: 'quote " backslash \\ tab \t nl \n cr \r nul \u0000 bell \u0007 del \u007f', slash: '</script>&' },
  { lone: '\ud800 \udfff x' },
  { nested: [[[]], [[1, [2, [3, [{}]]]]], [null, true, false]] },
  { big: 1e21, small: 5e-324, neg: -0, max: Number.MAX_SAFE_INTEGER, over: 2 ** 64, frac: 0.1 + 0.2 },
  { long: 'x'.repeat(70_000) },
  { longUnicode: 'é'.repeat(40_000) + '😀'.repeat(20_000) },
  { kind: 'Pod', metadata: { name: 'p', labels: { 'app.kubernetes.io/name': 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
];

/** A stream's whole output. */
async function drain(stream: ListStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.pipe(new Writable({ write(chunk: Buffer, _e, cb) { parts.push(chunk); cb(); } }).on('finish', resolve).on('error', reject));
    stream.on('error', reject);
  });
  return Buffer.concat(parts);
}

/** `n` entries drawn from `odd` (and a few generated), each with its index. */
function entriesOf(n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({ i, v: odd[i % odd.length], pad: 'p'.repeat((i * 37) % 300) }));
}

describe('ChunkWriter', () => {
  it('writes the UTF-8 of every text, in order, across chunks of every size', () => {
    for (const [first, max] of [[16, 16], [64, 1024], [1024, 1 << 20], [5, 7]] as const) {
      const w = new ChunkWriter(first, max);
      const texts = ['', 'abc', 'é', '😀', '\ud800', 'x'.repeat(100), 'ü'.repeat(33), '漢'.repeat(3), 'z'];
      const out: Buffer[] = [];
      let want = '';
      for (let r = 0; r < 20; r++) {
        for (const t of texts) {
          w.text(t);
          want += t;
        }
        out.push(...w.take());
      }
      out.push(...w.take(true));
      assert.equal(Buffer.concat(out).toString('hex'), Buffer.from(want, 'utf8').toString('hex'), `chunks ${first}..${max}`);
      assert.equal(w.written, Buffer.byteLength(want));
      for (const b of out.slice(0, -1)) assert.ok(b.length > 0);
    }
  });

  it('appends arrays of entries without their brackets, joined by commas', () => {
    const w = new ChunkWriter(32, 64);
    w.text('{"items":[');
    w.entries('[1,"é",{}]', true);
    w.entries('[]', false);
    w.entries('[[2],"😀"]', false);
    w.text(',');
    w.text('"x"');
    w.entries(`[${JSON.stringify('y'.repeat(100))}]`, false);
    w.text(']}');
    const want = `{"items":[1,"é",{},[2],"😀","x",${JSON.stringify('y'.repeat(100))}]}`;
    assert.equal(Buffer.concat(w.take(true)).toString('utf8'), want);
    assert.equal(w.written, Buffer.byteLength(want));
  });
});

describe('list stream runs of entries', () => {
  for (const n of [0, 1, 2, 11, 500, 3000]) {
    it(`is byte-identical to the entries one by one (${n} entries)`, async () => {
      const items = entriesOf(n);
      const head = { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: 'é<>' } };
      const entry = (i: number) => JSON.stringify(items[i]);
      // Every third entry comes as its own text (as an object with its stored JSON does), the others in runs.
      const entries: ListSpec['entries'] = (from, to, emit) => {
        let run: unknown[] = [];
        for (let i = from; i < to; i++) {
          if (i % 3 === 1) {
            if (run.length) emit(JSON.stringify(run), true);
            run = [];
            emit(entry(i), false);
          } else run.push(items[i]);
        }
        if (run.length) emit(JSON.stringify(run), true);
      };
      const want = `${JSON.stringify({ ...head, items })}\n`;
      const oneByOne = await drain(new ListStream({ head, field: 'items', count: n, entry }));
      const inRuns = await drain(new ListStream({ head, field: 'items', count: n, entry, entries }));
      assert.equal(oneByOne.toString('utf8'), want);
      assert.ok(inRuns.equals(Buffer.from(want, 'utf8')), 'runs differ from JSON.stringify of the whole list');
      // Pretty output goes entry by entry whatever the spec offers, and says the same.
      const pretty = await drain(new ListStream({ head, field: 'items', count: n, entry, entries }, true));
      assert.deepEqual(JSON.parse(pretty.toString('utf8')), JSON.parse(want));
    });
  }

  it('hands out full chunks of at most the cap (a text longer than a chunk excepted)', async () => {
    const items = Array.from({ length: 4000 * (maxChunkBytes / (64 * 1024)) }, (_, i) => ({ i, pad: 'q'.repeat(500) }));
    const stream = new ListStream({ head: { kind: 'List' }, field: 'items', count: items.length, entry: (i) => JSON.stringify(items[i]), entries: (f, t, emit) => emit(JSON.stringify(items.slice(f, t)), true) });
    const sizes: number[] = [];
    await new Promise<void>((resolve) => {
      stream.on('data', (c: Buffer) => sizes.push(c.length));
      stream.on('end', resolve);
    });
    assert.ok(sizes.length >= 3 && sizes.length < 60, `chunks: ${sizes.join(',')}`);
    assert.ok(Math.max(...sizes) <= maxChunkBytes, `chunks: ${sizes.join(',')}`);
    // Chunks grow from 64 KiB to the cap, then stay full.
    const full = sizes.slice(0, -1).filter((s) => s > maxChunkBytes - 4 * 1024).length;
    assert.ok(sizes.slice(0, -1).every((s) => s > 60 * 1024) && full >= sizes.length - 4, `chunks: ${sizes.join(',')}`);
  });

  it('fills written chunks again, never one its consumer has not finished writing', async () => {
    // A consumer that writes each chunk a few turns later (as a socket does), reading its bytes only then: a chunk
    // refilled too early would show up as bytes that differ from JSON.stringify of the list.
    const items = Array.from({ length: 12_000 }, (_, i) => ({ i, v: i % 7 ? 'ascii '.repeat(i % 40) : 'ключ 😀 '.repeat(i % 30), pad: 'p'.repeat(600 + (i % 500)) }));
    const want = Buffer.from(`${JSON.stringify({ kind: 'List', items })}\n`, 'utf8');
    for (const delay of [0, 1, 3]) {
      const stream = new ListStream({ head: { kind: 'List' }, field: 'items', count: items.length, entry: (i) => JSON.stringify(items[i]), entries: (f, t, emit) => emit(JSON.stringify(items.slice(f, t)), true) });
      const parts: Buffer[] = [];
      const memories = new Set<ArrayBufferLike>();
      let chunks = 0;
      const later = (n: number, fn: () => void): void => {
        if (n <= 0) setImmediate(fn);
        else setImmediate(() => later(n - 1, fn));
      };
      const sink = new Writable({
        highWaterMark: 16 * 1024,
        write(chunk: Buffer, _e, cb) {
          chunks++;
          memories.add(chunk.buffer);
          later(delay, () => {
            parts.push(Buffer.from(chunk));
            cb();
          });
        },
      });
      sink.on('pipe', (src) => {
        if (src === stream) stream.recycleWritten(() => sink.writableLength);
      });
      await new Promise<void>((resolve, reject) => {
        sink.on('finish', resolve).on('error', reject);
        stream.on('error', reject);
        stream.pipe(sink);
      });
      const got = Buffer.concat(parts);
      assert.ok(got.equals(want), `delay ${delay}: the body differs from JSON.stringify of the list`);
      assert.ok(chunks > 20, `${chunks} chunks`);
      assert.ok(memories.size <= 8, `delay ${delay}: ${memories.size} buffers for ${chunks} chunks`);
    }
  });
});

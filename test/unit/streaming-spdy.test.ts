// SPDY/3.1 framing, header blocks and the server connection, with split and random input.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createInflate, constants } from 'node:zlib';
import { createHash } from 'node:crypto';
import { dataFrame, FrameReader, goAwayFrame, pingFrame, rstStreamFrame, settingsFrame, SpdyProtocolError, synReplyFrame, synStreamFrame, windowUpdateFrame, type SpdyFrame } from '../../src/api/streaming/spdy-frames.js';
import { encodeHeaderBlock, HeaderCompressor, HeaderDecompressor, parseHeaderBlock } from '../../src/api/streaming/spdy-headers.js';
import { spdyDictionary } from '../../src/api/streaming/spdy-dictionary.js';
import { goLikeCompressor } from '../helpers/spdy-compressor.js';
import { SpdyConnection, type SpdyStream, type Transport } from '../../src/api/streaming/spdy-connection.js';

function inflateAll(blocks: Buffer[]): Promise<Buffer[]> {
  const z = createInflate({ dictionary: spdyDictionary });
  let out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const results: Buffer[] = [];
  return blocks.reduce((p, b) => p.then(() => new Promise<void>((resolve, reject) => {
    z.once('error', reject);
    z.write(b);
    z.flush(constants.Z_SYNC_FLUSH, () => {
      results.push(Buffer.concat(out));
      out = [];
      resolve();
    });
  })), Promise.resolve()).then(() => results);
}

describe('SPDY frames', () => {
  const frames = [
    dataFrame(1, Buffer.from('hello'), true),
    synStreamFrame(3, Buffer.from([1, 2, 3]), false, 0, 2),
    synReplyFrame(5, Buffer.from([9]), true),
    rstStreamFrame(7, 5),
    settingsFrame([{ id: 4, value: 100 }, { id: 7, value: 65536 }]),
    pingFrame(42),
    goAwayFrame(9, 0),
    windowUpdateFrame(1, 1024),
  ];

  it('parses what it writes, whole or cut at every byte', () => {
    const all = Buffer.concat(frames);
    const whole = new FrameReader().push(all);
    assert.deepEqual(whole.map((f) => f.type), ['data', 'synStream', 'synReply', 'rstStream', 'settings', 'ping', 'goAway', 'windowUpdate']);
    assert.deepEqual(whole[0], { type: 'data', streamId: 1, fin: true, data: Buffer.from('hello') });
    assert.equal((whole[1] as Extract<SpdyFrame, { type: 'synStream' }>).priority, 2);
    assert.deepEqual(whole[4], { type: 'settings', entries: [{ flags: 0, id: 4, value: 100 }, { flags: 0, id: 7, value: 65536 }] });
    assert.deepEqual(whole[7], { type: 'windowUpdate', streamId: 1, delta: 1024 });
    for (let cut = 1; cut < all.length; cut++) {
      const r = new FrameReader();
      const parsed = [...r.push(all.subarray(0, cut)), ...r.push(all.subarray(cut))];
      assert.deepEqual(parsed, whole, `cut at ${cut}`);
      assert.equal(r.pending, 0);
    }
  });

  it('refuses frames over the bounds and other versions', () => {
    const limits = { maxDataFrame: 16, maxControlFrame: 64, maxSettings: 2 };
    assert.throws(() => new FrameReader(limits).push(dataFrame(1, Buffer.alloc(17))), SpdyProtocolError);
    // The length alone decides: nothing past the header is needed to refuse.
    assert.throws(() => new FrameReader(limits).push(dataFrame(1, Buffer.alloc(1000)).subarray(0, 8)), SpdyProtocolError);
    assert.throws(() => new FrameReader(limits).push(synStreamFrame(1, Buffer.alloc(60))), SpdyProtocolError);
    assert.throws(() => new FrameReader(limits).push(settingsFrame([{ id: 1, value: 1 }, { id: 2, value: 2 }, { id: 3, value: 3 }])), /SETTINGS/);
    const v2 = pingFrame(1);
    v2.writeUInt16BE(0x8002, 0);
    assert.throws(() => new FrameReader().push(v2), /version 2/);
    const short = Buffer.from('8003000100000002aaaa', 'hex');
    assert.throws(() => new FrameReader().push(short), /too short/);
  });

  it('survives random bytes: protocol errors only, bounded memory', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 2000; i++) {
      const r = new FrameReader({ maxDataFrame: 4096, maxControlFrame: 4096, maxSettings: 8 });
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 64) }, () => Math.floor(rnd() * 256)));
      try {
        r.push(bytes);
        assert.ok(r.pending <= 8 + 4096);
      } catch (e) {
        assert.ok(e instanceof SpdyProtocolError, String(e));
      }
    }
  });
});

describe('SPDY header blocks', () => {
  it('builds the 1423-byte SPDY/3 dictionary', () => {
    assert.equal(spdyDictionary.length, 1423);
    assert.equal(createHash('sha256').update(spdyDictionary).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  });

  it('writes blocks any primed inflater reads, one block after another', async () => {
    const c = new HeaderCompressor();
    const blocks = [encodeHeaderBlock([]), encodeHeaderBlock([['StreamType', 'stdout'], ['port', '80']]), encodeHeaderBlock([['x', 'y'.repeat(70000)]])];
    const out = await inflateAll(blocks.map((b) => c.compress(b)));
    assert.deepEqual(out, blocks.map((b) => b.length > 0 ? Buffer.from(b.toString('latin1').replace('StreamType', 'streamtype'), 'latin1') : b));
    assert.deepEqual([...parseHeaderBlock(out[1])], [['streamtype', 'stdout'], ['port', '80']]);
  });

  it('reads blocks a Go client compresses, in sequence', async () => {
    const compress = goLikeCompressor();
    const d = new HeaderDecompressor();
    for (const type of ['error', 'stdin', 'stdout', 'stderr', 'resize']) {
      const block = await compress(encodeHeaderBlock([['streamtype', type], ['requestid', '0']]));
      assert.equal(parseHeaderBlock(await d.decompress(block)).get('streamtype'), type);
    }
    d.close();
  });

  it('bounds a block: decompressed size, pair count, truncation', async () => {
    const compress = goLikeCompressor();
    const d = new HeaderDecompressor({ maxBlockBytes: 1024, maxPairs: 4 });
    await assert.rejects(d.decompress(await compress(encodeHeaderBlock([['bomb', 'a'.repeat(100_000)]]))), /exceeds 1024/);
    assert.throws(() => parseHeaderBlock(encodeHeaderBlock(Array.from({ length: 5 }, (_, i) => [`h${i}`, 'v'] as const)), { maxBlockBytes: 1024, maxPairs: 4 }), /5 pairs/);
    const block = encodeHeaderBlock([['name', 'value']]);
    for (let cut = 0; cut < block.length; cut++) assert.throws(() => parseHeaderBlock(block.subarray(0, cut)), SpdyProtocolError);
    assert.throws(() => parseHeaderBlock(encodeHeaderBlock([['', 'v']])), /empty header name/);
    const garbage = new HeaderDecompressor();
    await assert.rejects(garbage.decompress(Buffer.from('not zlib at all')), SpdyProtocolError);
  });
});

class FakeTransport implements Transport {
  written: Buffer[] = [];
  ended = false;
  paused = 0;
  backlogBytes = 0;
  write(d: Buffer) {
    this.written.push(d);
  }
  backlog() {
    return this.backlogBytes;
  }
  pause() {
    this.paused++;
  }
  resume() {}
  end() {
    this.ended = true;
  }
  destroyed = false;
  destroy() {
    this.destroyed = true;
  }
  frames(): SpdyFrame[] {
    return new FrameReader().push(Buffer.concat(this.written));
  }
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('SPDY connection', () => {
  it('answers streams with SYN_REPLY, delivers data to the end, echoes pings', async () => {
    const t = new FakeTransport();
    const streams: SpdyStream[] = [];
    const conn = new SpdyConnection(t, (s) => streams.push(s));
    const compress = goLikeCompressor();
    conn.receive(synStreamFrame(1, await compress(encodeHeaderBlock([['streamtype', 'stdin']]))));
    conn.receive(Buffer.concat([dataFrame(1, Buffer.from('abc')), dataFrame(1, Buffer.from('def'), true), pingFrame(1), pingFrame(2)]));
    await settle();
    assert.equal(streams.length, 1);
    assert.equal(streams[0].headers.get('streamtype'), 'stdin');
    const got: Buffer[] = [];
    for await (const c of streams[0].input) got.push(c);
    assert.equal(Buffer.concat(got).toString(), 'abcdef');
    streams[0].write('out');
    streams[0].end();
    const sent = t.frames();
    assert.deepEqual(sent.map((f) => f.type), ['synReply', 'ping', 'data', 'data']);
    assert.deepEqual(sent[1], { type: 'ping', id: 1 });
    assert.deepEqual(sent[3], { type: 'data', streamId: 1, fin: true, data: Buffer.alloc(0) });
    conn.shutdown();
    assert.equal(t.ended, true);
    assert.equal(t.frames().at(-1)?.type, 'goAway');
  });

  it('refuses streams past the limit, bad stream ids and garbage', async () => {
    const t = new FakeTransport();
    const conn = new SpdyConnection(t, () => undefined, { maxStreams: 2, streamBuffer: 1024, maxBacklog: 1 << 20, sendChunk: 1024, idleMs: 60_000 });
    const compress = goLikeCompressor();
    for (const id of [1, 3, 5]) conn.receive(synStreamFrame(id, await compress(encodeHeaderBlock([['streamtype', 'data']]))));
    await settle();
    const sent = t.frames();
    assert.deepEqual(sent.map((f) => f.type), ['synReply', 'synReply', 'rstStream']);
    assert.deepEqual(sent[2], { type: 'rstStream', streamId: 5, status: 3 });
    conn.receive(synStreamFrame(4, await compress(encodeHeaderBlock([['streamtype', 'data']]))));
    await settle();
    assert.equal(conn.isClosed, true, 'an even stream id from the client is a protocol error');
    const t2 = new FakeTransport();
    const c2 = new SpdyConnection(t2, () => undefined);
    c2.receive(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    assert.equal(c2.isClosed, true);
    assert.equal(t2.ended, true);
  });

  it('drops a client that does not read, and pauses one that floods a stream', async () => {
    const t = new FakeTransport();
    const streams: SpdyStream[] = [];
    const conn = new SpdyConnection(t, (s) => streams.push(s), { maxStreams: 4, streamBuffer: 10, maxBacklog: 100, sendChunk: 1024, idleMs: 60_000 });
    const compress = goLikeCompressor();
    conn.receive(synStreamFrame(1, await compress(encodeHeaderBlock([['streamtype', 'data']]))));
    const flood = Array.from({ length: 40 }, () => dataFrame(1, Buffer.alloc(8)));
    conn.receive(Buffer.concat(flood));
    await settle();
    assert.ok(t.paused > 0, 'reading paused while the stream is full');
    assert.ok(streams[0].input.buffered <= 10 + 8);
    t.backlogBytes = 1000;
    streams[0].write('x');
    assert.equal(conn.isClosed, true);
    assert.equal(t.destroyed, true, 'cut, not ended gracefully');
  });

  it('ends after the idle timeout', async () => {
    const t = new FakeTransport();
    const conn = new SpdyConnection(t, () => undefined, { maxStreams: 4, streamBuffer: 10, maxBacklog: 100, sendChunk: 1024, idleMs: 30 });
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(conn.isClosed, true);
    assert.equal(t.ended, true);
  });
});

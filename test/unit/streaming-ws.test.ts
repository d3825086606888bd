// The WebSocket channel codec, the resize stream and the bounded byte queue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeChannelMessage, encodeChannelMessage, pickChannelProtocol } from '../../src/api/streaming/ws-channels.js';
import { execStatus, ResizeReader } from '../../src/api/streaming/exec-status.js';
import { ByteQueue } from '../../src/api/streaming/byte-queue.js';

describe('WebSocket channels', () => {
  const v5 = pickChannelProtocol(['v5.channel.k8s.io'])!;
  const v4 = pickChannelProtocol(['v4.channel.k8s.io'])!;
  const b64 = pickChannelProtocol(['base64.channel.k8s.io'])!;

  it('picks the first protocol the client offers that is spoken', () => {
    assert.equal(pickChannelProtocol(['x', 'v4.channel.k8s.io', 'v5.channel.k8s.io'])?.name, 'v4.channel.k8s.io');
    assert.equal(pickChannelProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io'])?.name, 'v5.channel.k8s.io');
    assert.equal(pickChannelProtocol(['SPDY/3.1+portforward.k8s.io']), undefined);
  });

  it('decodes channel messages, text or binary alike, and v5 close', () => {
    assert.deepEqual(decodeChannelMessage(v5, Buffer.from([0, 104, 105])), { kind: 'data', channel: 0, data: Buffer.from('hi') });
    assert.deepEqual(decodeChannelMessage(v5, Buffer.from([255, 0])), { kind: 'close', channel: 0 });
    assert.deepEqual(decodeChannelMessage(v4, Buffer.from([255, 0])), { kind: 'skip' }, 'close is v5 only');
    assert.deepEqual(decodeChannelMessage(v5, Buffer.from([255])), { kind: 'skip' });
    assert.deepEqual(decodeChannelMessage(v5, Buffer.alloc(0)), { kind: 'skip' });
    // The Python client writes string stdin as a text message: chr(0) then the text.
    assert.deepEqual(decodeChannelMessage(v4, Buffer.from('\u0000echo hi\n')), { kind: 'data', channel: 0, data: Buffer.from('echo hi\n') });
  });

  it('decodes and encodes the base64 variant', () => {
    assert.deepEqual(decodeChannelMessage(b64, Buffer.from(`0${Buffer.from('ls\n').toString('base64')}`)), { kind: 'data', channel: 0, data: Buffer.from('ls\n') });
    assert.deepEqual(decodeChannelMessage(b64, Buffer.from('0!!notbase64')), { kind: 'skip' });
    // Past '9' the channel digit wraps as a byte does; no exec channel is that high, so nobody reads it.
    assert.deepEqual(decodeChannelMessage(b64, Buffer.from('xAAAA')), { kind: 'data', channel: 72, data: Buffer.from([0, 0, 0]) });
    assert.equal((decodeChannelMessage(b64, Buffer.from('/')) as { channel: number }).channel, 255);
    assert.deepEqual(encodeChannelMessage(b64, 1, Buffer.from('hi')), { data: `1${Buffer.from('hi').toString('base64')}`, binary: false });
    assert.deepEqual(encodeChannelMessage(v5, 2, Buffer.from('e')), { data: Buffer.from([2, 101]), binary: true });
  });

  it('never throws on random messages', () => {
    let seed = 3;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 2000; i++) {
      const m = Buffer.from(Array.from({ length: Math.floor(rnd() * 16) }, () => Math.floor(rnd() * 256)));
      for (const p of [v5, v4, b64]) decodeChannelMessage(p, m);
    }
  });
});

describe('exec outcome and resize stream', () => {
  it('reports exit codes as the kubelet does', () => {
    assert.deepEqual(JSON.parse(execStatus({ exitCode: 0 }, ['true'], true)!.toString()), { metadata: {}, status: 'Success' });
    const failed = JSON.parse(execStatus({ exitCode: 3 }, ['sh', '-c', 'exit 3'], true)!.toString());
    assert.equal(failed.reason, 'NonZeroExitCode');
    assert.deepEqual(failed.details.causes, [{ reason: 'ExitCode', message: '3' }]);
    assert.equal(execStatus({ exitCode: 0 }, ['true'], false), undefined);
  });

  it('splits concatenated and cut resize objects, skipping junk', () => {
    const r = new ResizeReader();
    assert.deepEqual(r.push(Buffer.from('{"Width":80,"Height":24}{"Width":1')), [{ width: 80, height: 24 }]);
    assert.deepEqual(r.push(Buffer.from('00,"Height":40}junk{"Width":-1,"Height":2}{bad}')), [{ width: 100, height: 40 }]);
    assert.deepEqual(r.push(Buffer.from('x'.repeat(100_000))), []);
    assert.deepEqual(r.push(Buffer.from('{"Width":5,"Height":6}')), [{ width: 5, height: 6 }]);
  });
});

describe('byte queue', () => {
  it('holds writers past its limit and ends after what is queued', async () => {
    const q = new ByteQueue(4);
    await q.push(Buffer.from('ab'));
    let released = false;
    const waiting = q.push(Buffer.from('cdef')).then(() => (released = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(released, false);
    const it = q[Symbol.asyncIterator]();
    assert.equal(((await it.next()).value as Buffer).toString(), 'ab');
    assert.equal(((await it.next()).value as Buffer).toString(), 'cdef');
    await waiting;
    q.end();
    assert.equal((await it.next()).done, true);
    await q.push(Buffer.from('late'));
    assert.equal(q.buffered, 0);
  });
});

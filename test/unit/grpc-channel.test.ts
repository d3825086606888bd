// The etcd store's gRPC channel (src/storage/etcd/grpc-channel.ts) against an HTTP/2 server written here that answers
// as a gRPC server does: messages split across frames, several in one frame, trailers-only errors, silence, a
// compressed message, a refused connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { GrpcChannel } from '../../src/storage/etcd/grpc-channel.js';

const framed = (payload: string, flag = 0) => {
  const body = Buffer.from(payload);
  const b = Buffer.alloc(5 + body.length);
  b[0] = flag;
  b.writeUInt32BE(body.length, 1);
  body.copy(b, 5);
  return b;
};

/** A server whose streams `handle` answers; resolves with its URL and a stop function. */
async function serve(handle: (stream: http2.ServerHttp2Stream, path: string, body: () => Promise<Buffer>) => void) {
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    let resolveBody: (b: Buffer) => void = () => {};
    const body = new Promise<Buffer>((r) => { resolveBody = r; });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolveBody(Buffer.concat(chunks)));
    stream.on('error', () => {});
    handle(stream, String(headers[':path']), () => body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

test('a unary answer split across frames is put back together; the request arrives framed', async () => {
  const s = await serve((stream, path, body) => {
    void body().then((req) => {
      assert.equal(path, '/etcdserverpb.KV/Range');
      const echoed = framed(`got ${req.subarray(5).toString()} (${req[0]},${req.readUInt32BE(1)})`);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.write(echoed.subarray(0, 3));
      stream.write(echoed.subarray(3, 9));
      stream.end(echoed.subarray(9));
    });
  });
  const ch = new GrpcChannel([s.url]);
  try {
    const answer = await ch.call('/etcdserverpb.KV/Range', Buffer.from('hello'), 5000);
    assert.equal(answer.toString(), 'got hello (0,5)');
  } finally {
    ch.close();
    await s.stop();
  }
});

test("an error status is etcd's message, decoded; silence ends at the deadline; a refused connection fails at once", async () => {
  const s = await serve((stream, path) => {
    if (path.endsWith('/Txn')) stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '3', 'grpc-message': 'etcdserver%3A%20request%20is%20too%20large' }, { endStream: true });
    // Anything else is never answered.
  });
  const ch = new GrpcChannel([s.url]);
  try {
    await assert.rejects(ch.call('/etcdserverpb.KV/Txn', Buffer.from('x'), 5000), (e: Error & { code?: number }) => e.message === 'etcdserver: request is too large' && e.code === 3);
    await assert.rejects(ch.call('/etcdserverpb.KV/Range', Buffer.from('x'), 100), /context deadline exceeded/);
  } finally {
    ch.close();
    await s.stop();
  }
  const refused = new GrpcChannel([s.url]);
  try {
    await assert.rejects(refused.call('/etcdserverpb.KV/Range', Buffer.from('x'), 5000), /ECONNREFUSED|closed|connect/i);
  } finally {
    refused.close();
  }
});

test('a stream delivers each message once, however the frames cut them, then its end; a compressed message ends it', async () => {
  const s = await serve((stream, path) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    if (path.endsWith('/Compressed')) {
      stream.write(framed('zipped', 1));
      return;
    }
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '1', 'grpc-message': 'canceled by the server' }));
    stream.once('data', () => {
      const third = framed('three');
      stream.write(Buffer.concat([framed('one'), framed('two'), third.subarray(0, 2)]));
      setTimeout(() => stream.end(third.subarray(2)), 20);
    });
  });
  const ch = new GrpcChannel([s.url]);
  try {
    const got: string[] = [];
    const ended = await new Promise<string>((resolve) => {
      const st = ch.stream('/etcdserverpb.Watch/Watch', { message: (m) => got.push(m.toString()), end: resolve });
      st.write(Buffer.from('start'));
    });
    assert.deepEqual(got, ['one', 'two', 'three']);
    assert.equal(ended, 'canceled by the server');
    const why = await new Promise<string>((resolve) => ch.stream('/etcdserverpb.Watch/Compressed', { message: () => assert.fail('a compressed message was delivered'), end: resolve }));
    assert.match(why, /compressed/);
  } finally {
    ch.close();
    await s.stop();
  }
});

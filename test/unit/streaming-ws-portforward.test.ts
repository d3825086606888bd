// The kubelet's WebSocket port-forward (v4.channel.k8s.io, its base64 twin, or no subprotocol) and exec as the
// Python client sends it (booleans as `True`, stdin in text messages), against an in-process Bonsai with the
// stand-in runtime, whose port 81 refuses connections.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { installContainerRuntime } from '../../src/api/streaming/runtime.js';
import { portsOption, webSocketPortsProblem } from '../../src/api/streaming/portforward-options.js';
import { runningWebPod, standInRuntime } from '../helpers/stand-in-runtime.js';

const PF = '/api/v1/namespaces/default/pods/web/portforward';
const EXEC = '/api/v1/namespaces/default/pods/web/exec';

interface Session {
  ws: WebSocket;
  protocol: string;
  /** Messages received, as [channel, payload], base64 decoded for the base64 protocol. */
  got: Array<[number, Buffer]>;
  closed: Promise<number>;
}

function open(b: Bonsai, path: string, protocols: string[]): Promise<Session> {
  const ws = new WebSocket(`${b.url.replace(/^http/, 'ws')}${path}`, protocols, { headers: { authorization: `Bearer ${b.credentials.token}` } });
  const got: Array<[number, Buffer]> = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('message', (d: Buffer, binary: boolean) => {
    if (binary) got.push([d[0], d.subarray(1)]);
    else got.push([d[0] - 0x30, Buffer.from(d.subarray(1).toString(), 'base64')]);
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, protocol: ws.protocol, got, closed }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => reject(new Error(`${res.statusCode} ${body}`)));
    });
    ws.on('error', reject);
  });
}

const on = (s: Session, ch: number) => Buffer.concat(s.got.filter(([c]) => c === ch).map(([, d]) => d));

describe('WebSocket port-forward and Python-style exec', () => {
  let b: Bonsai;
  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', addons: [] });
    installContainerRuntime(b.registry, {
      ...standInRuntime,
      portForward: (c) => (c.port === 81 ? Promise.reject(new Error('connection refused')) : standInRuntime.portForward(c)),
    });
    await runningWebPod(b);
  });
  after(async () => {
    await b?.close();
  });

  // The newest Python client offers v5 then v4 for every WebSocket: port-forward speaks v4.
  for (const protocols of [['v4.channel.k8s.io'], ['v4.base64.channel.k8s.io'], [], ['v5.channel.k8s.io', 'v4.channel.k8s.io']]) {
    it(`forwards each port on its channel pair (${protocols.join(', ') || 'no subprotocol'})`, async () => {
      const s = await open(b, `${PF}?ports=8080,81`, protocols);
      assert.equal(s.protocol, protocols.at(-1) ?? '');
      const request = Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      // The client's data for port i goes on channel 2i, in either kind of message.
      if (protocols[0]?.includes('base64')) s.ws.send(`0${request.toString('base64')}`);
      else s.ws.send(Buffer.concat([Buffer.from([0]), request]), { binary: protocols.length === 0 });
      assert.equal(await s.closed, 1000, 'closed once both forwards are over');
      // The first message on each channel is its port, little-endian.
      const firsts = [0, 1, 2, 3].map((ch) => s.got.find(([c]) => c === ch)?.[1]);
      assert.deepEqual(firsts, [Buffer.from([0x90, 0x1f]), Buffer.from([0x90, 0x1f]), Buffer.from([81, 0]), Buffer.from([81, 0])]);
      assert.match(on(s, 0).subarray(2).toString(), /^HTTP\/1.1 200 OK\r\n[^]*\r\n\r\npod web port 8080\n$/);
      assert.deepEqual(on(s, 1), Buffer.from([0x90, 0x1f]), 'no error for 8080');
      assert.equal(on(s, 2).length, 2, 'no data from the refused port');
      assert.equal(on(s, 3).subarray(2).toString(), 'error forwarding port 81 to pod web, uid : connection refused');
    });
  }

  it('answers bad ports and unknown subprotocols as the apiserver and the kubelet do', async () => {
    await assert.rejects(open(b, `${PF}?ports=x`, ['v4.channel.k8s.io']), /^Error: 400 .*cannot convert to \[\]int32: strconv.ParseUint: parsing \\"x\\": invalid syntax/);
    await assert.rejects(open(b, `${PF}?ports=70000`, ['v4.channel.k8s.io']), /value out of range/);
    await assert.rejects(open(b, PF, ['v4.channel.k8s.io']), /^Error: 400 query parameter "port" is required$/);
    await assert.rejects(open(b, `${PF}?ports=0`, ['v4.channel.k8s.io']), /^Error: 400 port "0" must be > 0$/);
    await assert.rejects(open(b, `${PF}?ports=80`, ['v5.channel.k8s.io']), /^Error: 400 requested protocol\(s\) are not supported: \[v5.channel.k8s.io\]/);
    assert.deepEqual(portsOption(['80,0081', '443']), [80, 81, 443]);
    assert.throws(() => portsOption(['']), /parsing "": invalid syntax/);
    assert.throws(() => portsOption(['+80']), /invalid syntax/);
    assert.throws(() => portsOption(['1'.repeat(40)]), /value out of range/);
    assert.equal(webSocketPortsProblem(Array.from({ length: 33 }, () => 80)), 'too many ports: at most 32 over one WebSocket');
  });

  it('ignores data for error channels and for ports it does not forward', async () => {
    const s = await open(b, `${PF}?ports=8080`, ['v4.channel.k8s.io']);
    for (const ch of [1, 2, 9, 255]) s.ws.send(Buffer.from([ch, 1, 2, 3]));
    s.ws.send(Buffer.alloc(0));
    s.ws.send(Buffer.from('\u0000GET / HTTP/1.1\r\n\r\n'), { binary: false });
    assert.equal(await s.closed, 1000);
    assert.match(on(s, 0).toString(), /pod web port 8080/);
  });

  it('reads exec booleans as the apiserver converts them, and stdin from text messages', async () => {
    const out = await open(b, `${EXEC}?command=fail&stderr=True&stdin=False&stdout=TRUE&tty=False`, ['v4.channel.k8s.io']);
    assert.equal(await out.closed, 1000);
    assert.equal(on(out, 2).toString(), 'oops\n');
    assert.match(on(out, 3).toString(), /"reason":"NonZeroExitCode"/);
    // stdin=1 and `stdin=` (empty) are true as well; 0 and false (any case) are not.
    const cat = await open(b, `${EXEC}?command=cat&stdin=&stdout=1&stderr=FALSE`, ['v5.channel.k8s.io']);
    cat.ws.send('\u0000hello ', { binary: false });
    cat.ws.send(Buffer.from('\u0000world\n'));
    cat.ws.send(Buffer.from([255, 0]));
    assert.equal(await cat.closed, 1000);
    assert.equal(on(cat, 1).toString(), 'hello world\n');
    await assert.rejects(open(b, `${EXEC}?command=echo&stdout=0&stderr=false&stdin=False`, ['v4.channel.k8s.io']), /^Error: 400 .*you must specify at least one of stdin, stdout, stderr/);
  });
});

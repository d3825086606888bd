// KEDA's scalers do not connect to link-local or cloud metadata addresses: not as a URL's IP literal, not through a
// name that is a metadata service's or resolves to such an address (the connection's own lookup checks what it
// connects to), not through a redirect. Loopback and private ranges stay allowed. Failures read as Go's client
// prints them and carry nothing the far side sent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { addressAllowed } from '../../src/addons/keda/outbound-guard.js';
import { httpGet } from '../../src/addons/keda/http-get.js';
import { buildScaler } from '../../src/addons/keda/scalers/build.js';
import type { ScalerConfig } from '../../src/addons/keda/metadata.js';
import type { Client } from '../../src/client/client.js';
import { ManualClock } from '../../src/util/clock.js';

const refused = /Bonsai's KEDA scalers do not connect to .*: link-local and cloud metadata addresses are refused$/;

/** A resolver answering `addresses` for every name, counting its calls. */
function fakeDns(...addresses: string[]) {
  const calls: string[] = [];
  const resolve = (host: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    calls.push(host);
    cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { resolve, calls };
}

describe('KEDA outbound guard', () => {
  let server: Server;
  let banner: TcpServer;
  let port = 0;
  let bannerPort = 0;
  before(async () => {
    server = createHttpServer((req, res) => {
      if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-named') return void res.writeHead(307, { location: `http://rebound.example:${port}/q` }).end();
      if (req.url === '/to-q') return void res.writeHead(301, { location: '/q' }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"v":5}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    // Not an HTTP server: what it says must not reach the error text.
    banner = createTcpServer((s) => s.end('SSH-2.0-OpenSSH_9.6 secret-banner\r\n'));
    await new Promise<void>((r) => banner.listen(0, '127.0.0.1', r));
    bannerPort = (banner.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
    banner.close();
  });

  it('refuses link-local and metadata addresses in every spelling; allows loopback and private ranges', () => {
    for (const a of ['169.254.169.254', '169.254.0.1', '169.254.170.2', '100.100.100.200', 'fe80::1', 'febf::1', 'fd00:ec2::254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', 'not-an-ip']) {
      assert.equal(addressAllowed(a), false, a);
    }
    for (const a of ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.10', '8.8.8.8', '::ffff:127.0.0.1', 'fd00::1', '2001:db8::1']) {
      assert.equal(addressAllowed(a), true, a);
    }
  });

  it('a metrics-api trigger on the metadata address is refused by the guard, before any connection', async () => {
    const env = { client: undefined as unknown as Client, clock: new ManualClock(0) };
    const cfg = (url: string): ScalerConfig => ({ namespace: 'default', name: 'so', triggerIndex: 0, triggerType: 'metrics-api', metricType: '', metadata: new Map([['url', url], ['valueLocation', 'v'], ['targetValue', '1']]), authParams: new Map() });
    for (const url of ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'http://0xa9fea9fe/latest', 'http://[fe80::1]:8080/x', 'http://[::ffff:169.254.169.254]/', 'http://metadata.google.internal/computeMetadata/v1/', 'https://METADATA.GOOGLE.INTERNAL./x', 'http://[fd00:ec2::254]/latest']) {
      await assert.rejects(buildScaler(cfg(url)).read!(env) as Promise<unknown>, (e: Error) => {
        assert.match(e.message, /^error requesting metrics endpoint: Get "[^"]+": /);
        assert.match(e.message, refused);
        return true;
      }, url);
    }
    // Loopback still serves metrics.
    assert.deepEqual(await buildScaler(cfg(`http://127.0.0.1:${port}/q`)).read!(env), { value: 5, active: true });
  });

  it('checks the addresses a name resolves to, as the connection uses them (DNS rebinding)', async () => {
    const bad = fakeDns('127.0.0.1', '169.254.169.254');
    await assert.rejects(httpGet(`http://rebind.example:${port}/q`, {}, { resolve: bad.resolve }), refused);
    assert.deepEqual(bad.calls, ['rebind.example']);
    const v6 = fakeDns('fe80::1');
    await assert.rejects(httpGet(`http://rebind.example:${port}/q`, {}, { resolve: v6.resolve }), refused);
    const good = fakeDns('127.0.0.1');
    assert.equal((await httpGet(`http://metrics.example:${port}/q`, {}, { resolve: good.resolve })).body, '{"v":5}');
  });

  it('checks every redirect: to a metadata address, to a name resolving to one; follows good ones, at most 10', async () => {
    await assert.rejects(httpGet(`http://127.0.0.1:${port}/to-metadata`, {}), refused);
    await assert.rejects(httpGet(`http://127.0.0.1:${port}/to-named`, {}, { resolve: fakeDns('169.254.169.254').resolve }), refused);
    assert.equal((await httpGet(`http://127.0.0.1:${port}/to-q`, {})).body, '{"v":5}');
    await assert.rejects(httpGet(`http://127.0.0.1:${port}/loop`, {}), { message: `Get "/loop": stopped after 10 redirects` });
  });

  it('a failure tells no more than Go\'s client: no banner of a non-HTTP port', async () => {
    await assert.rejects(httpGet(`http://127.0.0.1:${bannerPort}/`, {}), (e: Error) => {
      assert.doesNotMatch(e.message, /SSH|secret-banner/);
      assert.match(e.message, /^Get "http:\/\/127\.0\.0\.1:\d+\/": (net\/http: HTTP\/1\.x transport connection broken: malformed HTTP response|EOF)$/);
      return true;
    });
  });
});

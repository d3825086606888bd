// CRD conversion webhooks against a real HTTPS server on 127.0.0.1 with a CA made for the test: the ConversionReview
// sent (v1 or v1beta1 as conversionReviewVersions asks), objects already in the desired version not sent, and the
// hostile answers of test/helpers/hostile-conversion.ts each refused (or accepted) with upstream's words.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startHttpsTestServer, type HttpsTestServer } from '../helpers/https-test-server.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import type { Registry } from '../../src/registry/registry.js';
import type { ResourceDef } from '../../src/registry/resource.js';
import { createLogger } from '../../src/util/logger.js';
import { convertByWebhook } from '../../src/apiextensions/conversion-webhook.js';
import { conversionRows } from '../helpers/hostile-conversion.js';

type Json = Record<string, any>;

let server: HttpsTestServer;
let base = '';
let caBundle = '';
const seen: Json[] = [];

function serve(url: string, review: Json, res: ServerResponse): void {
  seen.push(review);
  const row = /^\/hostile\/(\d+)/.exec(url);
  const body = row
    ? conversionRows[Number(row[1])].answer(review as Parameters<(typeof conversionRows)[0]['answer']>[0])
    : JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Success' }, convertedObjects: review.request.objects.map((o: Json) => ({ ...o, apiVersion: review.request.desiredAPIVersion })) } });
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

/** What convertByWebhook reads of the registry with a url clientConfig. */
const reg = { log: createLogger('silent'), simulatedWebhooks: 'allow' } as Registry;

function def(path: string, reviewVersions = ['v1']): ResourceDef {
  return {
    group: 'hostile.example.com', version: 'v1', versions: ['v1', 'v2'], kind: 'Thing', plural: 'things', singular: 'thing', namespaced: true,
    conversionWebhook: { clientConfig: { url: `${base}${path}`, caBundle }, conversionReviewVersions: reviewVersions },
  };
}

const thing = (name = 'one', uid = 'u1'): KObject => ({
  apiVersion: 'hostile.example.com/v1', kind: 'Thing',
  metadata: { name, namespace: 'default', uid, generation: 1, resourceVersion: '5', labels: { app: 'x' } }, spec: { host: 'h' },
});

describe('CRD conversion webhook', () => {
  before(async () => {
    server = await startHttpsTestServer('conversion-unit', serve);
    ({ base, caBundle } = server);
  });
  after(() => server.close());

  it('sends only the objects not in the desired version, in one review, and keeps the order', async () => {
    seen.length = 0;
    const already = { ...thing('two', 'u2'), apiVersion: 'hostile.example.com/v2' };
    const out = await convertByWebhook(reg, def('/ok'), [thing(), already, thing('three', 'u3')], 'v2', [], true);
    assert.deepEqual(out.map((o) => [o.metadata.name, o.apiVersion]), [['one', 'hostile.example.com/v2'], ['two', 'hostile.example.com/v2'], ['three', 'hostile.example.com/v2']]);
    assert.equal(out[1], already);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(seen[0].request.desiredAPIVersion, 'hostile.example.com/v2');
    assert.deepEqual(seen[0].request.objects.map((o: Json) => o.metadata.name), ['one', 'three']);
    // Nothing to convert: no call.
    await convertByWebhook(reg, def('/ok'), [already], 'v2', []);
    assert.equal(seen.length, 1);
  });

  it('speaks v1beta1 when the CRD lists only that, and refuses unknown review versions', async () => {
    seen.length = 0;
    await convertByWebhook(reg, def('/ok', ['v9', 'v1beta1']), [thing()], 'v2', []);
    assert.equal(seen[0].apiVersion, 'apiextensions.k8s.io/v1beta1');
    await assert.rejects(convertByWebhook(reg, def('/ok', ['v9']), [thing()], 'v2', []), (e: unknown) => e instanceof ApiError && e.code === 500 && e.message === 'no supported conversion review versions');
  });

  it('fails with upstream\'s message when the webhook cannot be reached', async () => {
    const d = def('/ok');
    d.conversionWebhook = { clientConfig: { url: 'https://127.0.0.1:1/convert', caBundle }, conversionReviewVersions: ['v1'] };
    await assert.rejects(convertByWebhook(reg, d, [thing()], 'v2', []), (e: unknown) => e instanceof ApiError && e.code === 500
      && /^conversion webhook for hostile\.example\.com\/v1, Kind=Thing failed: Post "https:\/\/127\.0\.0\.1:1\/convert\?timeout=30s": dial tcp 127\.0\.0\.1:1: connect: connection refused$/.test(e.message));
  });

  for (const [i, row] of conversionRows.entries()) {
    it(`hostile answer: ${row.name}`, async () => {
      const run = convertByWebhook(reg, def(`/hostile/${i}`), [thing()], 'v2', []);
      if (row.error) {
        await assert.rejects(run, (e: unknown) => {
          assert.ok(e instanceof ApiError, String(e));
          assert.equal(e.code, 500);
          assert.match(e.message, row.error!);
          return true;
        });
      } else {
        const [converted] = await run;
        assert.equal(row.check?.(converted as Json), undefined);
      }
      assert.equal(({} as Json).polluted, undefined);
    });
  }
});

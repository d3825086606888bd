// KEDA scalers without a cluster: trigger metadata parsed as KEDA's typed config does (required, defaulted, numbers
// with Go's errors), hostile metadata (bad numbers, huge strings, __proto__ keys), GJSON-like value locations,
// quantities, the cron window, metrics-api auth and its HTTP reading against a local server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floatParam, intParam, param, quantity, stringMap, type ScalerConfig } from '../../src/addons/keda/metadata.js';
import { lookup, parseQuantityString, splitPath, valueFromJson } from '../../src/addons/keda/value-location.js';
import { buildScaler } from '../../src/addons/keda/scalers/build.js';
import { inCronWindow } from '../../src/addons/keda/scalers/cron.js';
import { parseMetricsApiMeta, requestUrl } from '../../src/addons/keda/scalers/metrics-api.js';
import { ManualClock } from '../../src/util/clock.js';
import type { Client } from '../../src/client/client.js';

const cfg = (type: string, metadata: Record<string, string>, extra: Partial<ScalerConfig> = {}): ScalerConfig => ({
  namespace: 'default', name: 'so', triggerIndex: 0, triggerType: type, metricType: '', metadata: new Map(Object.entries(metadata)), authParams: new Map(), ...extra,
});
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

describe('KEDA trigger metadata', () => {
  it('required, defaulted and optional parameters with upstream\'s errors', () => {
    assert.equal(err(() => param(cfg('x', {}), 'url')), 'missing required parameter "url" in [triggerMetadata]');
    assert.equal(param(cfg('x', {}), 'format', { default: 'json' }), 'json');
    assert.equal(param(cfg('x', {}), 'timeout', { optional: true }), undefined);
    assert.equal(err(() => param(cfg('x', { format: 'csv' }), 'format', { enum: ['json', 'xml'] })), 'parameter "format" value "csv" must be one of [json xml]');
  });

  it('numbers parse as Go JSON numbers; anything else is upstream\'s unmarshal error', () => {
    assert.equal(floatParam(cfg('x', { v: '2.5' }), 'v'), 2.5);
    assert.equal(floatParam(cfg('x', { v: '1e3' }), 'v'), 1000);
    assert.equal(err(() => floatParam(cfg('x', { v: 'abc' }), 'v')), 'unable to set param "v" value "abc": unable to unmarshal to field type float64: invalid character \'a\' looking for beginning of value');
    assert.equal(err(() => floatParam(cfg('x', { v: '5x' }), 'v')), 'unable to set param "v" value "5x": unable to unmarshal to field type float64: invalid character \'x\' after top-level value');
    assert.match(err(() => floatParam(cfg('x', { v: 'NaN' }), 'v')), /invalid character 'N'/);
    assert.match(err(() => floatParam(cfg('x', { v: '1e999' }), 'v')), /unable to set param "v"/);
    assert.equal(intParam(cfg('x', { n: '3' }), 'n'), 3);
    assert.match(err(() => intParam(cfg('x', { n: '3.5' }), 'n')), /unable to unmarshal to field type int64/);
    assert.match(err(() => intParam(cfg('x', { n: '99999999999999999999' }), 'n')), /cannot unmarshal number/);
  });

  it('hostile metadata: huge values are refused, __proto__ keys stay data', () => {
    assert.match(err(() => param(cfg('x', { url: 'h'.repeat(100_000) }), 'url')), /longer than 8192 characters/);
    const m = stringMap(JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":"c","url":"u","n":5}'));
    assert.deepEqual([...m.keys()].sort(), ['constructor', 'url']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const withProto = new Map([['__proto__', 'x'], ['toString', 'y']]);
    assert.equal(param({ ...cfg('x', {}), metadata: withProto }, '__proto__'), 'x');
    assert.equal(err(() => buildScaler(cfg('metrics-api', { url: 'http://x', valueLocation: 'a', targetValue: '1e400' }))),
      'error parsing metric API metadata: error parsing metrics API metadata: unable to set param "targetValue" value "1e400": unable to unmarshal to field type float64: json: cannot unmarshal number 1e400 into Go value of type float64');
  });

  it('unknown trigger types and bad metadata are build errors, never crashes', () => {
    assert.equal(err(() => buildScaler(cfg('foo', {}))), 'no scaler found for type: foo');
    assert.equal(err(() => buildScaler(cfg('__proto__', {}))), 'no scaler found for type: __proto__');
    assert.equal(err(() => buildScaler(cfg('metrics-api', { url: 'http://x', valueLocation: 'a' }))), 'error parsing metric API metadata: error parsing metrics API metadata: no targetValue given in metadata');
    assert.equal(err(() => buildScaler(cfg('cron', { timezone: 'UTC', start: '0 6 * * *', end: '0 6 * * *', desiredReplicas: '2' }))), 'error parsing cron metadata: start and end can not have exactly same time input');
    assert.match(err(() => buildScaler(cfg('cron', { timezone: 'UTC', start: 'nope', end: '0 6 * * *', desiredReplicas: '2' }))), /^error parsing cron metadata: error parsing start schedule: expected exactly 5 fields/);
    assert.equal(err(() => buildScaler(cfg('cron', { timezone: 'UTC', start: '0 6 * * *', end: '0 7 * * *', desiredReplicas: '0' }))), 'error parsing cron metadata: no desiredReplicas specified');
    assert.equal(err(() => buildScaler(cfg('kubernetes-workload', { podSelector: 'app=x', value: '0' }))),
      'error parsing kubernetes workload metadata: error parsing kubernetes workload metadata: value must be a float greater than 0');
    assert.equal(err(() => buildScaler(cfg('cpu', { value: '50' }))), "error parsing cpu metadata: unknown metric type: , allowed values are 'Utilization' or 'AverageValue'");
    assert.equal(err(() => buildScaler(cfg('metrics-api', { url: 'http://x', valueLocation: 'a', targetValue: '1' }, { metricType: 'Utilization' }))),
      "error getting scaler metric type: 'Utilization' metric type is unsupported for external metrics, allowed values are 'Value' or 'AverageValue'");
  });

  it('metric specs: names with the trigger index, targets per metricType', () => {
    const m = buildScaler(cfg('metrics-api', { url: 'http://x/q', valueLocation: 'queue.depth', targetValue: '2.5' }, { triggerIndex: 1 })).metricSpec();
    assert.deepEqual(m, { type: 'External', external: { metric: { name: 's1-metric-api-queue-depth' }, target: { type: 'AverageValue', averageValue: '2500m' } } });
    const v = buildScaler(cfg('kubernetes-workload', { podSelector: 'app=x', value: '3' }, { metricType: 'Value' })).metricSpec();
    assert.deepEqual(v.external?.target, { type: 'Value', value: '3' });
    assert.equal(v.external?.metric.name, 's0-workload-default');
    const c = buildScaler(cfg('cron', { timezone: 'Europe/Paris', start: '0 8 * * 1-5', end: '*/30 18 * * *', desiredReplicas: '4' })).metricSpec();
    assert.equal(c.external?.metric.name, 's0-cron-Europe-Paris-08xx1-5-xSl3018xxx');
    assert.deepEqual(buildScaler(cfg('cpu', { value: '50' }, { metricType: 'Utilization' })).metricSpec(), { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } });
    assert.deepEqual(buildScaler(cfg('memory', { value: '512Mi' }, { metricType: 'AverageValue' })).metricSpec(), { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } });
  });
});

describe('KEDA values', () => {
  it('quantities as KEDA reports them', () => {
    assert.deepEqual([0, 1, 2.5, 0.001, 1500, 2000, 3_000_000, -1, NaN, Infinity].map(quantity), ['0', '1', '2500m', '1m', '1500', '2k', '3M', '0', '0', '0']);
    assert.deepEqual(['1500m', '2Ki', '3', '1e3', '.5', 'x', '1.2.3'].map(parseQuantityString), [1.5, 2048, 3, 1000, 0.5, undefined, undefined]);
  });

  it('GJSON-like value locations: dotted paths, array indexes, #, escaped dots', () => {
    const doc = JSON.parse('{"a":{"b":[{"c":7},{"c":"250m"}]},"x.y":3,"__proto__":{"v":1},"list":[1,2,3]}');
    assert.equal(lookup(doc, 'a.b.0.c'), 7);
    assert.equal(lookup(doc, 'a.b.1.c'), '250m');
    assert.equal(lookup(doc, 'x\\.y'), 3);
    assert.equal(lookup(doc, 'list.#'), 3);
    assert.equal(lookup(doc, '__proto__.v'), 1);
    assert.equal(lookup({}, 'constructor'), undefined);
    assert.equal(lookup({}, 'toString'), undefined);
    assert.deepEqual(splitPath('a\\.b.c'), ['a.b', 'c']);
    assert.equal(lookup(doc, Array(100).fill('a').join('.')), undefined);
    assert.equal(valueFromJson('{"a":{"b":[{"c":7},{"c":"250m"}]}}', 'a.b.1.c'), 0.25);
    assert.equal(err(() => valueFromJson('not json', 'a')), 'valueLocation "a" must point to a numeric value or a string parseable as a Quantity, got Null');
    assert.equal(err(() => valueFromJson('{"a":{"b":1}}', 'a')), 'valueLocation "a" must point to a numeric value or a string parseable as a Quantity, got JSON');
    assert.equal(err(() => valueFromJson('{"a":"lots"}', 'a')), 'valueLocation "a" points to a string that is not parseable as a Quantity');
    assert.equal(err(() => valueFromJson(`${'['.repeat(100_000)}`, 'a')), 'valueLocation "a" must point to a numeric value or a string parseable as a Quantity, got Null');
  });

  it('the cron window as upstream decides it, in the trigger\'s time zone', () => {
    const at = (iso: string) => Date.parse(iso);
    assert.equal(inCronWindow('0 8 * * *', '0 18 * * *', 'UTC', at('2026-03-02T09:00:00Z')), true);
    assert.equal(inCronWindow('0 8 * * *', '0 18 * * *', 'UTC', at('2026-03-02T19:00:00Z')), false);
    assert.equal(inCronWindow('0 8 * * *', '0 18 * * *', 'America/New_York', at('2026-03-02T12:30:00Z')), false);
    assert.equal(inCronWindow('0 8 * * *', '0 18 * * *', 'America/New_York', at('2026-03-02T13:30:00Z')), true);
    const clock = new ManualClock(at('2026-03-02T09:00:00Z'));
    const s = buildScaler(cfg('cron', { timezone: 'UTC', start: '0 8 * * *', end: '0 18 * * *', desiredReplicas: '4' }));
    assert.deepEqual(s.read!({ client: undefined as unknown as Client, clock }), { value: 4, active: true });
    const bad = buildScaler(cfg('cron', { timezone: 'Mars/Olympus', start: '0 8 * * *', end: '0 18 * * *', desiredReplicas: '4' }));
    assert.throws(() => bad.read!({ client: undefined as unknown as Client, clock }), /unable to load timezone: unknown time zone Mars\/Olympus/);
  });
});

describe('KEDA metrics-api scaler', () => {
  let server: Server;
  let body = '{"v":3}';
  let status = 200;
  const seen: Array<{ url?: string; auth?: string; key?: string }> = [];
  const base = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined });
      if (req.url === '/slow') return void setTimeout(() => res.end('{"v":1}'), 2000);
      if (req.url === '/huge') {
        res.write('{"v":');
        res.end(' '.repeat(2 << 20));
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  const env = { client: undefined as unknown as Client, clock: new ManualClock(0) };

  it('reads the value, activation above activationTargetValue, and sends the auth modes', async () => {
    const s = buildScaler(cfg('metrics-api', { url: `${base()}/q`, valueLocation: 'v', targetValue: '1', activationTargetValue: '3', authModes: 'bearer' }, { authParams: new Map([['token', 's3cret']]) }));
    assert.deepEqual(await s.read!(env), { value: 3, active: false });
    assert.equal(seen.at(-1)?.auth, 'Bearer s3cret');
    body = '{"v":"4"}';
    assert.deepEqual(await s.read!(env), { value: 4, active: true });
    const basic = buildScaler(cfg('metrics-api', { url: `${base()}/q`, valueLocation: 'v', targetValue: '1', authModes: 'basic' }, { authParams: new Map([['username', 'u'], ['password', 'p']]) }));
    await basic.read!(env);
    assert.equal(seen.at(-1)?.auth, `Basic ${Buffer.from('u:p').toString('base64')}`);
    const key = buildScaler(cfg('metrics-api', { url: `${base()}/q`, valueLocation: 'v', targetValue: '1', authModes: 'apiKey' }, { authParams: new Map([['apiKey', 'k1']]) }));
    await key.read!(env);
    assert.equal(seen.at(-1)?.key, 'k1');
    const meta = parseMetricsApiMeta(cfg('metrics-api', { url: `${base()}/q?x=1`, valueLocation: 'v', targetValue: '1', authModes: 'apiKey', method: 'query', keyParamName: 'k' }, { authParams: new Map([['apiKey', 'a b']]) }));
    assert.equal(requestUrl(meta), `${base()}/q?x=1&k=a+b`);
    assert.equal(err(() => buildScaler(cfg('metrics-api', { url: 'http://x', valueLocation: 'v', targetValue: '1', authModes: 'bearer' }))),
      'error parsing metric API metadata: error parsing metrics API metadata: bearer token=<empty> is required when bearer auth is enabled');
    assert.match(err(() => buildScaler(cfg('metrics-api', { url: 'http://x', valueLocation: 'v', targetValue: '1', authModes: 'bearer,basic' }))), /must contain only one of \[bearer basic oauth\]/);
  });

  it('failures are errors of the reading: status, bad JSON, timeout, size bound, refused, bad scheme', async () => {
    const read = async (url: string, extra: Record<string, string> = {}) => buildScaler(cfg('metrics-api', { url, valueLocation: 'v', targetValue: '1', ...extra })).read!(env);
    status = 503;
    await assert.rejects(read(`${base()}/q`), { message: 'error requesting metrics endpoint: /q: api returned 503' });
    status = 200;
    body = '{"v": [1,';
    await assert.rejects(read(`${base()}/q`), /got Null/);
    await assert.rejects(read(`${base()}/slow`, { timeout: '200' }), /context deadline exceeded/);
    await assert.rejects(read(`${base()}/huge`), /response body larger than 1048576 bytes/);
    await assert.rejects(read('http://127.0.0.1:2/x'), /connect: connection refused/);
    await assert.rejects(read('file:///etc/passwd'), /unsupported protocol scheme "file"/);
  });
});

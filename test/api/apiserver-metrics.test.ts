// /metrics: kube-apiserver's Prometheus metrics (request counts and latencies by verb and resource, long-running
// requests and watchers, in-flight requests, stored objects), in the Prometheus text format.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openWatch, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const CMS = '/api/v1/namespaces/default/configmaps';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics', () => {
  const { env, req } = useBonsai();
  const scrape = async () => {
    const r = await req('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return r.text;
  };

  it('counts requests by upstream verb, resource, scope and code, with latencies in upstream buckets', async () => {
    for (const name of ['m1', 'm2']) assert.equal((await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })).status, 201);
    await req('GET', `${CMS}/m1`);
    await req('GET', `${CMS}/nope`);
    await req('GET', CMS);
    await req('GET', '/api/v1/configmaps');
    await req('POST', `${CMS}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } });
    await req('PATCH', `${CMS}/m1?fieldManager=t`, { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }, { contentType: 'application/apply-patch+yaml' });
    await req('DELETE', `${CMS}/m2`);
    const text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'apiserver_request_total', 'code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="DELETE",version="v1"') ? t : undefined;
    }, 5000, 'the DELETE to be counted');
    const total = (labels: string) => sample(text, 'apiserver_request_total', labels);
    const base = 'component="apiserver",dry_run="",group="",resource="configmaps"';
    assert.equal(total(`code="201",${base},scope="resource",subresource="",verb="POST",version="v1"`), 2);
    assert.equal(total(`code="200",${base},scope="resource",subresource="",verb="GET",version="v1"`), 1);
    assert.equal(total(`code="404",${base},scope="resource",subresource="",verb="GET",version="v1"`), 1);
    assert.equal(total(`code="200",${base},scope="namespace",subresource="",verb="LIST",version="v1"`), 1);
    assert.equal(total(`code="200",${base},scope="cluster",subresource="",verb="LIST",version="v1"`), 1);
    assert.equal(total(`code="201",component="apiserver",dry_run="All",group="",resource="configmaps",scope="resource",subresource="",verb="POST",version="v1"`), 1);
    assert.equal(total(`code="200",${base},scope="resource",subresource="",verb="APPLY",version="v1"`), 1);
    assert.match(text, /# TYPE apiserver_request_duration_seconds histogram/);
    const buckets = text.split('\n').filter((l) => l.startsWith('apiserver_request_duration_seconds_bucket{') && l.includes('verb="POST"') && l.includes('dry_run=""'));
    assert.deepEqual(buckets.map((l) => /le="([^"]+)"/.exec(l)![1]), ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf']);
    assert.equal(Number(buckets.at(-1)!.split(' ').at(-1)), 2);
    // Paths no route serves are not counted (their labels would come from the client).
    await req('GET', '/api/v1/nopes');
    await req('GET', '/apis/metrics.k8s.io/v1beta1/nopes');
    assert.doesNotMatch(await scrape(), /resource="nopes"/);
  });

  it('tracks open watches as long-running requests and registered watchers, counting them once closed', async () => {
    const w = await openWatch(`${env.b.url}${CMS}?watch=true`);
    await w.waitFor((evs) => evs.length > 0);
    let text = await scrape();
    assert.equal(sample(text, 'apiserver_longrunning_requests', 'component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"'), 1);
    assert.equal(sample(text, 'apiserver_registered_watchers', 'group="",kind="ConfigMap",version="v1"'), 1);
    w.close();
    text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'apiserver_registered_watchers', 'group="",kind="ConfigMap",version="v1"') === 0 ? t : undefined;
    }, 5000, 'the watcher to go');
    assert.equal(sample(text, 'apiserver_request_total', 'code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"'), 1);
  });

  it('reports stored objects per resource and in-flight requests', async () => {
    const text = await scrape();
    const cms = (await req('GET', '/api/v1/configmaps')).body.items.length as number;
    assert.equal(sample(text, 'apiserver_storage_objects', 'resource="configmaps"'), cms);
    assert.equal(sample(text, 'apiserver_storage_objects', 'resource="namespaces"'), 4);
    assert.equal(sample(text, 'apiserver_storage_objects', 'resource="priorityclasses.scheduling.k8s.io"'), 2);
    // The scrape itself is a read in flight.
    assert.ok(sample(text, 'apiserver_current_inflight_requests', 'request_kind="readOnly"')! >= 1);
    assert.equal(sample(text, 'apiserver_request_total', 'code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/metrics",verb="GET",version=""')! >= 1, true);
  });
});

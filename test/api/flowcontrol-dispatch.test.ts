// API Priority and Fairness, the dispatching half: classification (X-Kubernetes-PF-* headers name the schema and
// level UIDs), 429s with upstream's text and Retry-After, the debug dumps and the apiserver_flowcontrol_* metrics.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { useBonsai, type Resp } from './http.js';
import { eventually } from '../helpers/kubectl.js';
import type { Bonsai } from '../../src/main.js';
import { flowSchemasKey, priorityLevelsKey } from '../../src/flowcontrol/dispatch/flow-control.js';

const as = (user: string, group?: string) => ({ headers: { 'Impersonate-User': user, ...(group ? { 'Impersonate-Group': group } : {}) } });
const anon = { anonymous: true };

/** The UID the headers should carry: the stored object's ('' while only the built-in data stands in). */
const uidOf = (b: Bonsai, key: string, name: string) => b.registry.getStored(key, '', name)?.metadata.uid ?? '';

function assertClassified(b: Bonsai, r: Resp, flowSchema: string, level: string): void {
  assert.equal(r.headers.get('x-kubernetes-pf-flowschema-uid'), uidOf(b, flowSchemasKey, flowSchema), `flow schema ${flowSchema}`);
  assert.equal(r.headers.get('x-kubernetes-pf-prioritylevel-uid'), uidOf(b, priorityLevelsKey, level), `priority level ${level}`);
}

/** A create whose body never finishes arriving: it holds its seat (executing) until the socket is destroyed. */
async function stalledCreate(b: Bonsai, ns: string): Promise<net.Socket> {
  const url = new URL(b.url);
  const s = net.connect(Number(url.port), url.hostname);
  s.on('error', () => {});
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.write(`POST /api/v1/namespaces/${ns}/configmaps HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
  return s;
}

describe('API Priority and Fairness: classification', () => {
  const { env, req } = useBonsai();

  it('puts system:masters in exempt, nodes in system-nodes, anonymous requests in global-default', async () => {
    // The built-in objects are created at start-up; until then the same data stands in, with no UIDs.
    await eventually(() => uidOf(env.b, flowSchemasKey, 'global-default') && uidOf(env.b, priorityLevelsKey, 'exempt'), 30_000, 'the built-in FlowSchemas and levels stored');
    const admin = await req('GET', '/api/v1/namespaces');
    assert.equal(admin.status, 200);
    assertClassified(env.b, admin, 'exempt', 'exempt');
    const node = await req('GET', '/api/v1/namespaces/default/pods', undefined, as('system:node:n1', 'system:nodes'));
    assert.equal(node.status, 200, node.text.slice(0, 300));
    assertClassified(env.b, node, 'system-nodes', 'system');
    const anonymous = await req('GET', '/api/v1/namespaces/default/configmaps', undefined, anon);
    assert.equal(anonymous.status, 200);
    assertClassified(env.b, anonymous, 'global-default', 'global-default');
    const user = await req('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-alice' } }, as('alice'));
    assert.equal(user.status, 201, user.text.slice(0, 300));
    assertClassified(env.b, user, 'global-default', 'global-default');
  });

  it('follows FlowSchemas and levels as they are created and deleted', async () => {
    const fc = '/apis/flowcontrol.apiserver.k8s.io/v1';
    const pl = await req('POST', `${fc}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'tiny' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
    });
    assert.equal(pl.status, 201, pl.text.slice(0, 300));
    const fs = await req('POST', `${fc}/flowschemas`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'carol' },
      spec: {
        priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 100, distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
      },
    });
    assert.equal(fs.status, 201, fs.text.slice(0, 300));
    const asCarol = await req('GET', '/api/v1/namespaces/default/configmaps', undefined, as('carol'));
    assert.equal(asCarol.status, 200);
    assert.equal(asCarol.headers.get('x-kubernetes-pf-flowschema-uid'), fs.body.metadata.uid);
    assert.equal(asCarol.headers.get('x-kubernetes-pf-prioritylevel-uid'), pl.body.metadata.uid);
    assert.match((await req('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text, /\ntiny, +0, +true, +false, +0, +0\n/);
    assert.match((await req('GET', '/metrics')).text, /\napiserver_flowcontrol_nominal_limit_seats\{priority_level="tiny"\} 3\n/);
    assert.equal((await req('DELETE', `${fc}/flowschemas/carol`)).status, 200);
    assertClassified(env.b, await req('GET', '/api/v1/namespaces/default/configmaps', undefined, as('carol')), 'global-default', 'global-default');
  });

  it('serves the debug dumps in upstream columns', async () => {
    const levels = await req('GET', '/debug/api_priority_and_fairness/dump_priority_levels');
    assert.equal(levels.status, 200);
    const lines = levels.text.trimEnd().split('\n');
    assert.deepEqual(lines[0].split(',').map((c) => c.trim()), ['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests']);
    for (const name of ['catch-all', 'exempt', 'global-default', 'system', 'workload-low']) assert.ok(lines.some((l) => l.startsWith(`${name},`)), `${name} in ${levels.text}`);
    const queues = await req('GET', '/debug/api_priority_and_fairness/dump_queues');
    assert.match(queues.text, /^PriorityLevelName, +Index, +PendingRequests, +ExecutingRequests, +SeatsInUse, +NextDispatchR, +InitialSeatsSum, +MaxSeatsSum, +TotalWorkSum\n/);
    assert.match(queues.text, /\nglobal-default, +127, +0, +0, +0, +[0-9.]+ss, +0, +0, +0\.00000000ss\n/);
    const requests = await req('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1');
    assert.match(requests.text, /^PriorityLevelName, +FlowSchemaName, +QueueIndex, +RequestIndexInQueue, +FlowDistingsher, +ArriveTime, +InitialSeats, +FinalSeats, +AdditionalLatency, +UserName, +Verb, +APIPath, +Namespace, +Name, +APIVersion, +Resource, +SubResource\n$/);
  });
});

describe('API Priority and Fairness: a level out of seats', () => {
  // 2 seats for the server: global-default's share is ceil(2 × 20 / 245) = 1.
  const { env, req } = useBonsai({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });

  it('queues a request behind the busy seat and dispatches it when the seat frees', async () => {
    await eventually(() => uidOf(env.b, flowSchemasKey, 'global-default') && uidOf(env.b, priorityLevelsKey, 'global-default'), 30_000, 'the built-in FlowSchemas and levels stored');
    const stalled = await stalledCreate(env.b, 'default');
    try {
      await eventually(async () => (await req('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text.split('\n').find((l) => /^global-default, +0, +false, +false, +0, +1\s*$/.test(l)), 20_000, 'the stalled create executing');
      const waiting = req('GET', '/api/v1/namespaces/default/configmaps?timeout=60s', undefined, anon);
      const dump = await eventually(async () => {
        const t = (await req('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1')).text;
        return t.split('\n').length > 2 && t;
      }, 20_000, 'the list waiting in a queue');
      const row = dump.split('\n')[1].split(',').map((c) => c.trim());
      assert.deepEqual([row[0], row[1], row[3], row[4], row[6], row[7], row[8]], ['global-default', 'global-default', '0', 'system:anonymous', '1', '0', '0s']);
      assert.match(row[5], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.deepEqual(row.slice(9), ['system:anonymous', 'list', '/api/v1/namespaces/default/configmaps', 'default', '', 'v1', 'configmaps', '']);
      stalled.destroy();
      assert.equal((await waiting).status, 200);
    } finally {
      stalled.destroy();
    }
  });

  it('answers 429 with upstream text and Retry-After once the queue wait limit (a quarter of the timeout) passes', async () => {
    const stalled = await stalledCreate(env.b, 'default');
    try {
      await eventually(async () => (await req('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text.split('\n').find((l) => /^global-default, +0, +false, +false, +0, +1\s*$/.test(l)), 20_000, 'the stalled create executing');
      const r = await req('GET', '/api/v1/namespaces/default/configmaps?timeout=200ms', undefined, anon);
      assert.equal(r.status, 429);
      assert.equal(r.text, 'Too many requests, please try again later.\n');
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
      assertClassified(env.b, r, 'global-default', 'global-default');
      // The admin is exempt: served whatever the load.
      assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    } finally {
      stalled.destroy();
    }
  });

  it('exposes the apiserver_flowcontrol metrics with upstream labels', async () => {
    const text = (await req('GET', '/metrics')).text;
    assert.match(text, /\napiserver_flowcontrol_dispatched_requests_total\{flow_schema="exempt",priority_level="exempt"\} \d+\n/);
    assert.match(text, /\napiserver_flowcontrol_rejected_requests_total\{flow_schema="global-default",priority_level="global-default",reason="time-out"\} [1-9]\d*\n/);
    assert.match(text, /\napiserver_flowcontrol_current_inqueue_requests\{flow_schema="global-default",priority_level="global-default"\} 0\n/);
    assert.match(text, /\napiserver_flowcontrol_current_executing_requests\{flow_schema="exempt",priority_level="exempt"\} [1-9]\d*\n/);
    assert.match(text, /\napiserver_flowcontrol_current_executing_seats\{flow_schema="exempt",priority_level="exempt"\} [1-9]\d*\n/);
    assert.match(text, /\napiserver_flowcontrol_request_wait_duration_seconds_bucket\{execute="false",flow_schema="global-default",priority_level="global-default",le="\+Inf"\} [1-9]\d*\n/);
    assert.match(text, /\napiserver_flowcontrol_nominal_limit_seats\{priority_level="global-default"\} 1\n/);
    assert.match(text, /\napiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} 1\n/);
  });
});

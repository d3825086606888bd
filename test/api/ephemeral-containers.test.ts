// pods/ephemeralcontainers as kube-apiserver serves it (what `kubectl debug` uses), the simulated kubelet running
// what it adds, and the subresources that would need a real container answering one 400 that names them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const PODS = '/api/v1/namespaces/default/pods';
const SMP = { contentType: 'application/strategic-merge-patch+json' };
const debuggerContainer = (name: string, extra: Record<string, unknown> = {}) => ({
  name, image: 'busybox', targetContainerName: 'main', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', resources: {}, ...extra,
});

describe('ephemeral containers', () => {
  const { req } = useBonsai({ cluster: { nodes: 1 } });

  it('adds ephemeral containers through the subresource, which the kubelet runs', async () => {
    const c = await req('POST', PODS, { metadata: { name: 'target' }, spec: { containers: [{ name: 'main', image: 'nginx' }] } });
    assert.equal(c.status, 201, c.text);
    await eventually(async () => (await req('GET', `${PODS}/target`)).body.status?.phase === 'Running', 10_000, 'the pod to run');

    const g = await req('GET', `${PODS}/target/ephemeralcontainers`);
    assert.equal(g.status, 200);
    assert.equal(g.body.kind, 'Pod');
    const generation: number = g.body.metadata.generation;

    // kubectl debug: a strategic merge patch of spec.ephemeralContainers. Other changes in the request are dropped.
    const p = await req('PATCH', `${PODS}/target/ephemeralcontainers`, { metadata: { labels: { sneaky: 'yes' } }, spec: { ephemeralContainers: [debuggerContainer('debugger')] } }, SMP);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.kind, 'Pod');
    assert.equal(p.body.metadata.labels?.sneaky, undefined);
    assert.deepEqual(p.body.spec.ephemeralContainers.map((e: { name: string; terminationMessagePath: string }) => [e.name, e.terminationMessagePath]), [['debugger', '/dev/termination-log']]);
    assert.equal(p.body.metadata.generation, generation + 1, 'a spec change');

    const st = await eventually(async () => {
      const pod = (await req('GET', `${PODS}/target`)).body;
      const s = pod.status?.ephemeralContainerStatuses?.[0];
      return s?.state?.running ? s : undefined;
    }, 10_000, 'the ephemeral container to run');
    assert.equal(st.name, 'debugger');
    assert.equal(st.ready, false);
    assert.equal(st.restartCount, 0);
    assert.equal(st.started, undefined);
    assert.match(st.containerID, /^containerd:\/\//);
    assert.equal(st.image, 'docker.io/library/busybox:latest');
    const events = (await req('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dtarget')).body.items
      .filter((e: { involvedObject: { fieldPath?: string } }) => e.involvedObject.fieldPath === 'spec.ephemeralContainers{debugger}')
      .map((e: { reason: string }) => e.reason);
    for (const reason of ['Pulling', 'Pulled', 'Created', 'Started']) assert.ok(events.includes(reason), `${reason} in ${events}`);
    // The pod stays Running and Ready: an ephemeral container takes no part in either.
    const pod = (await req('GET', `${PODS}/target`)).body;
    assert.equal(pod.status.phase, 'Running');
    assert.equal(pod.status.conditions.find((x: { type: string }) => x.type === 'Ready').status, 'True');

    // A command that ends: the container terminates and is not restarted. Its output is in the logs.
    const cur = (await req('GET', `${PODS}/target/ephemeralcontainers`)).body;
    const two = await req('PUT', `${PODS}/target/ephemeralcontainers`, {
      ...cur, spec: { ...cur.spec, ephemeralContainers: [...cur.spec.ephemeralContainers, debuggerContainer('once', { command: ['sh', '-c', 'echo checked; exit 3'] })] },
    });
    assert.equal(two.status, 200, two.text);
    const done = await eventually(async () => {
      const s = (await req('GET', `${PODS}/target`)).body.status?.ephemeralContainerStatuses?.find((x: { name: string }) => x.name === 'once');
      return s?.state?.terminated ? s : undefined;
    }, 10_000, 'the second ephemeral container to end');
    assert.equal(done.state.terminated.exitCode, 3);
    assert.equal(done.restartCount, 0);
    const logs = await req('GET', `${PODS}/target/log?container=once`);
    assert.equal(logs.text, 'checked\n');
  });

  it('refuses what upstream refuses: changes, removals, clashing names, missing targets, fields they may not have', async () => {
    const sub = `${PODS}/target/ephemeralcontainers`;
    const cur = (await req('GET', sub)).body;
    const put = (list: unknown[]) => req('PUT', sub, { ...cur, spec: { ...cur.spec, ephemeralContainers: list } });
    const [first, second] = cur.spec.ephemeralContainers;

    let s = assertStatus(await put([second]), 422, 'Invalid', 'Pod "target" is invalid: spec.ephemeralContainers: Not found: "debugger"');
    assert.equal(s.details.causes[0].field, 'spec.ephemeralContainers');
    assertStatus(await put([{ ...first, image: 'alpine' }, second]), 422, 'Invalid',
      'Pod "target" is invalid: spec.ephemeralContainers[debugger]: Forbidden: existing ephemeral containers "debugger" may not be changed');
    s = assertStatus(await put([first, second, debuggerContainer('main'), debuggerContainer('x', { targetContainerName: 'nope', ports: [{ containerPort: 80 }], readinessProbe: { exec: { command: ['true'] } } })]), 422, 'Invalid');
    assert.deepEqual(s.details.causes.map((x: { field: string; message: string }) => `${x.field}: ${x.message}`), [
      'spec.ephemeralContainers[2].name: Duplicate value: "main"',
      'spec.ephemeralContainers[3].targetContainerName: Not found: "nope"',
      'spec.ephemeralContainers[3].ports: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers[3].readinessProbe: Forbidden: cannot be set for an Ephemeral Container',
    ]);
    // The pod itself may not change them.
    const pod = (await req('GET', `${PODS}/target`)).body;
    assertStatus(await req('PUT', `${PODS}/target`, { ...pod, spec: { ...pod.spec, ephemeralContainers: [first] } }), 422, 'Invalid', /pod updates may not change fields/);
    assertStatus(await req('POST', sub, pod), 405, 'MethodNotAllowed');
    assertStatus(await req('POST', PODS, { metadata: { name: 'born-with' }, spec: { containers: [{ name: 'main', image: 'nginx' }], ephemeralContainers: [debuggerContainer('dbg')] } }),
      422, 'Invalid', 'Pod "born-with" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create');
    assertStatus(await req('GET', `${PODS}/nope/ephemeralcontainers`), 404, 'NotFound', 'pods "nope" not found');
  });

  it('answers plain exec, attach and portforward requests with 400, nodes/proxy with one 400 naming it, and pod and service proxies as upstream does without a server', async () => {
    await req('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    const node = (await req('GET', '/api/v1/nodes')).body.items[0].metadata.name;
    // exec, attach and portforward are served as upgrades (test/e2e/exec.test.ts); a plain request is refused.
    for (const sub of ['exec?command=ls&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
      for (const method of ['GET', 'POST']) assertStatus(await req(method, `${PODS}/target/${sub}`), 400, 'BadRequest', /does not have a host assigned|Upgrade request required/);
    }
    const cases: Array<[string, string]> = [
      [`/api/v1/nodes/${node}/proxy/metrics`, 'nodes/proxy'],
    ];
    for (const [path, name] of cases) {
      for (const method of ['GET', 'POST']) {
        assertStatus(await req(method, path), 400, 'BadRequest', `${name} is not supported: bonsai simulates pods and runs no containers`);
      }
    }
    // pods/proxy and services/proxy answer from the simulated HTTP server (nginx here; more in test/e2e/kubernetes-basics).
    for (const method of ['GET', 'POST', 'DELETE']) {
      const home = await req(method, `${PODS}/target/proxy/`);
      assert.equal(home.status, 200);
      assert.match(home.text, /Welcome to nginx!/);
      assert.equal((await req(method, `${PODS}/target:80/proxy/some/path`)).status, 404);
      assertStatus(await req(method, `${PODS}/target:8080/proxy/`), 503, 'ServiceUnavailable', /^error trying to reach service: dial tcp [\d.]+:8080: connect: connection refused$/);
      assertStatus(await req(method, '/api/v1/namespaces/default/services/web/proxy/'), 503, 'ServiceUnavailable', 'no endpoints available for service "web"');
    }
    assertStatus(await req('GET', `${PODS}/a:b:c:d/proxy/`), 400, 'BadRequest', 'invalid pod request "a:b:c:d"');
    assertStatus(await req('GET', `${PODS}/missing:8080/proxy/`), 404, 'NotFound', 'pods "missing" not found');
    assertStatus(await req('PUT', `${PODS}/target/exec`), 405, 'MethodNotAllowed');
    assertStatus(await req('POST', `${PODS}/missing/exec`), 404, 'NotFound', 'pods "missing" not found');
    const discovery = (await req('GET', '/api/v1')).body.resources.map((r: { name: string }) => r.name);
    for (const r of ['pods/exec', 'pods/attach', 'pods/portforward', 'pods/proxy', 'pods/ephemeralcontainers', 'services/proxy', 'nodes/proxy']) assert.ok(discovery.includes(r), r);
  });
});

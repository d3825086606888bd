// DNS and HTTP inside exec: nslookup and getent of Services, pods and headless Services; wget/curl to Service names
// round-robin over ready endpoints; the responder's page, 503 while not ready, and the annotation override.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from '../../src/generated/k8s/core/v1.js';
import { Harness, podSpec, exec, createObject } from './exec-harness.js';

let h: Harness;
let svc: Service;
const pods = ['web-a', 'web-b', 'web-c'];

before(async () => {
  h = await Harness.start();
  for (const name of pods) await h.create(podSpec(name, { hostname: name, subdomain: 'web-headless', containers: [{ name: 'c', image: 'registry.example/app:1', ports: [{ containerPort: 8080 }] }] }, undefined) as never);
  for (const name of pods) h.pod(name);
  await h.create(podSpec('client', { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] }));
  await h.create(podSpec('nginx', { containers: [{ name: 'c', image: 'nginx:1.27' }] }));
  await h.create(podSpec('custom', { containers: [{ name: 'c', image: 'nginx' }] }, { 'bonsai.dev/http-response': '{"status": 418, "body": "short and stout\\n"}' }));
  await h.create(podSpec('unready', { containers: [{ name: 'c', image: 'nginx' }] }, { 'bonsai.dev/never-ready': 'true' }));
  await h.run(5000);
  svc = await createObject(h, '', 'v1', 'services', 'default', { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
  await createObject(h, '', 'v1', 'services', 'default', { metadata: { name: 'web-headless' }, spec: { clusterIP: 'None', selector: { app: 'web' }, ports: [{ name: 'http', port: 8080 }] } });
  for (const s of ['web', 'web-headless']) {
    await createObject(h, 'discovery.k8s.io', 'v1', 'endpointslices', 'default', {
      metadata: { name: `${s}-abcde`, labels: { 'kubernetes.io/service-name': s } }, addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: pods.map((p) => ({ addresses: [h.pod(p)!.status!.podIP!], hostname: p, conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'default', name: p } })),
    });
  }
});
after(() => h.close());

test('nslookup and getent resolve Services, headless Services, pods and kubernetes.default', async () => {
  const r = await exec(h, 'client', ['nslookup', 'web']);
  assert.equal(r.exitCode, 0);
  assert.equal(r.out, `Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${svc.spec!.clusterIP}\n\n`);
  const k = await exec(h, 'client', ['nslookup', 'kubernetes.default']);
  assert.match(k.out, /Name:\tkubernetes\.default\.svc\.cluster\.local\nAddress: 10\.96\.0\.1\n/);
  const headless = await exec(h, 'client', ['nslookup', 'web-headless']);
  for (const p of pods) assert.ok(headless.out.includes(`Address: ${h.pod(p)!.status!.podIP}`), headless.out);
  const one = await exec(h, 'client', ['getent', 'hosts', 'web-b.web-headless']);
  assert.equal(one.out, `${h.pod('web-b')!.status!.podIP!.padEnd(15)} web-b.web-headless.default.svc.cluster.local\n`);
  const ip = h.pod('web-a')!.status!.podIP!;
  const podName = `${ip.replace(/\./g, '-')}.default.pod`;
  assert.match((await exec(h, 'client', ['nslookup', podName])).out, new RegExp(`Address: ${ip.replace(/\./g, '\\.')}`));
  const nx = await exec(h, 'client', ['nslookup', 'nope']);
  assert.equal(nx.exitCode, 1);
  assert.match(nx.out, /\*\* server can't find nope: NXDOMAIN/);
  assert.equal((await exec(h, 'client', ['getent', 'hosts', 'nope'])).exitCode, 2);
});

test('wget to a Service name goes round robin over its 3 ready pods', async () => {
  const seen: string[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await exec(h, 'client', ['wget', '-qO-', 'http://web']);
    assert.equal(r.exitCode, 0, r.err);
    seen.push(/^pod: (.*)$/m.exec(r.out)![1]);
  }
  assert.deepEqual(new Set(seen.slice(0, 3)), new Set(pods));
  assert.deepEqual(seen.slice(3), seen.slice(0, 3));
  const viaIp = await exec(h, 'client', ['sh', '-c', `wget -qO- ${svc.spec!.clusterIP}:80 | grep '^image:'`]);
  assert.equal(viaIp.out, 'image: registry.example/app:1\n');
  const curl = await exec(h, 'client', ['curl', '-s', `http://${h.pod('web-c')!.status!.podIP}:8080/`]);
  assert.match(curl.out, /^pod: web-c\nnamespace: default\nimage: registry\.example\/app:1\nnode: node-1\npod IP: 10\.244\.1\.\d+\n$/);
  const refused = await exec(h, 'client', ['curl', '-sS', `http://${h.pod('web-c')!.status!.podIP}:9999/`]);
  assert.equal(refused.exitCode, 7);
  assert.equal((await exec(h, 'client', ['curl', '-s', 'http://nope'])).exitCode, 6);
  const bad = await exec(h, 'client', ['wget', '-qO-', 'http://nope']);
  assert.deepEqual([bad.exitCode, bad.err], [1, "wget: bad address 'nope'\n"]);
});

test('the responder: nginx page, annotation override, 503 while not ready', async () => {
  const ip = (p: string) => h.pod(p)!.status!.podIP!;
  const nginx = await exec(h, 'client', ['wget', '-qO-', ip('nginx')]);
  assert.match(nginx.out, /<title>Welcome to nginx!<\/title>/);
  const custom = await exec(h, 'client', ['curl', '-si', ip('custom')]);
  assert.match(custom.out, /^HTTP\/1\.1 418 I'm a teapot\r\n/);
  assert.ok(custom.out.endsWith('\r\n\r\nshort and stout\n'));
  const pod = h.pod('unready') as Pod;
  assert.notEqual(pod.status?.phase, undefined);
  const un = await exec(h, 'client', ['wget', '-qO-', ip('unready')]);
  assert.deepEqual([un.exitCode, un.err], [1, 'wget: server returned error: HTTP/1.1 503 Service Unavailable\n']);
  assert.equal((await exec(h, 'client', ['curl', '-sf', ip('unready')])).exitCode, 22);
});

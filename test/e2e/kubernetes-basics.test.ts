// The Kubernetes Basics tutorial (kubernetes.io/docs/tutorials/kubernetes-basics) as written, with real kubectl:
// create the bootcamp Deployment, reach the pod through `kubectl proxy`, read its logs, expose it, label it, scale
// it to 4, roll it to v2, fail a rollout with a missing tag (ImagePullBackOff) and undo it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

describe('the Kubernetes Basics tutorial', () => {
  const env = useKubectlServer();
  const podNames = async () => (await env.k.ok(['get', 'pods', '-o', 'go-template', '--template', '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}'])).trim().split('\n').filter(Boolean);

  it('runs as written, from create deployment to rollout undo', async () => {
    // Module 2: deploy an app.
    assert.match(await env.k.ok(['create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1']),
      /deployment.apps\/kubernetes-bootcamp created/);
    await eventually(async () => /^kubernetes-bootcamp\s+1\/1\s+1\s+1\s+\d+s$/m.test(await env.k.ok(['get', 'deployments'])), 15_000, 'the deployment available');

    // kubectl proxy, then the API and the pod through it.
    const proxy = env.k.start(['proxy', '--port=0']);
    try {
      const base = await eventually(() => /Starting to serve on (127\.0\.0\.1:\d+)/.exec(proxy.out())?.[1], 10_000, 'kubectl proxy serving');
      const version = (await (await fetch(`http://${base}/version`)).json()) as Json;
      assert.match(version.gitVersion, /^v1\./);

      // Module 3: explore the app.
      const [pod] = await podNames();
      assert.match(pod, /^kubernetes-bootcamp-[a-z0-9]+-[a-z0-9]{5}$/);
      const hello = await fetch(`http://${base}/api/v1/namespaces/default/pods/${pod}:8080/proxy/`);
      assert.equal(hello.status, 200);
      assert.equal(await hello.text(), `Hello Kubernetes bootcamp! | Running on: ${pod} | v=1\n`);
      const logs = await env.k.ok(['logs', pod]);
      assert.match(logs, new RegExp(`^Kubernetes Bootcamp App Started At: \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\| Running On:  ${pod} \\n\\n`));
      assert.match(logs, new RegExp(`^Running On: ${pod} \\| Total Requests: 1 \\| App Uptime: [\\d.]+ seconds \\| Log Time: `, 'm'));
      assert.match(await env.k.ok(['describe', 'pods']), /Image:\s+gcr\.io\/google-samples\/kubernetes-bootcamp:v1/);
      // Inside the container: its environment, the app's source, and the app answering on localhost.
      assert.match(await env.k.ok(['exec', pod, '--', 'env']), new RegExp(`^HOSTNAME=${pod}$`, 'm'));
      const shell = await env.k.ok(['exec', '-i', pod, '--', 'bash'], { input: 'cat server.js\ncurl -s http://localhost:8080\nexit\n' });
      assert.match(shell, /http\.createServer/);
      assert.match(shell, new RegExp(`Hello Kubernetes bootcamp! \\| Running on: ${pod} \\| v=1`));

      // Module 4: expose it with a Service.
      await env.k.ok(['expose', 'deployment/kubernetes-bootcamp', '--type=NodePort', '--port', '8080']);
      assert.match(await env.k.ok(['get', 'services']), /^kubernetes-bootcamp\s+NodePort\s+10\.\d+\.\d+\.\d+\s+<none>\s+8080:3\d{4}\/TCP\s+\d+s$/m);
      const nodePort = await env.k.ok(['get', 'services/kubernetes-bootcamp', '-o', 'go-template={{(index .spec.ports 0).nodePort}}']);
      assert.match(nodePort, /^3\d{4}$/);
      const svcUrl = `http://${base}/api/v1/namespaces/default/services/kubernetes-bootcamp:8080/proxy/`;
      assert.equal(await eventually(async () => {
        const r = await fetch(svcUrl);
        return r.status === 200 && (await r.text());
      }, 10_000, 'the service answering'), `Hello Kubernetes bootcamp! | Running on: ${pod} | v=1\n`);

      // Labels.
      assert.match(await env.k.ok(['describe', 'deployment']), /Labels:\s+app=kubernetes-bootcamp/);
      assert.match(await env.k.ok(['get', 'pods', '-l', 'app=kubernetes-bootcamp']), new RegExp(`^${pod}\\s+1/1\\s+Running`, 'm'));
      await env.k.ok(['label', 'pods', pod, 'version=v1']);
      assert.match(await env.k.ok(['get', 'pods', '-l', 'version=v1']), new RegExp(`^${pod}\\s`, 'm'));

      // Module 5: scale to 4; the service reaches every replica.
      await env.k.ok(['scale', 'deployments/kubernetes-bootcamp', '--replicas=4']);
      await eventually(async () => /^kubernetes-bootcamp\s+4\/4\s+4\s+4\s/m.test(await env.k.ok(['get', 'deployments'])), 15_000, '4 replicas available');
      const four = await podNames();
      assert.equal(four.length, 4);
      await eventually(async () => {
        const eps = JSON.parse(await env.k.ok(['get', 'endpoints', 'kubernetes-bootcamp', '-o', 'json'])) as Json;
        return (eps.subsets?.[0]?.addresses ?? []).length === 4;
      }, 10_000, '4 endpoints');
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++) seen.add(/Running on: (\S+)/.exec(await (await fetch(svcUrl)).text())?.[1] ?? '');
      assert.deepEqual([...seen].sort(), [...four].sort(), 'the service answers from every replica');

      // Module 6: rolling update to v2.
      await env.k.ok(['set', 'image', 'deployments/kubernetes-bootcamp', 'kubernetes-bootcamp=docker.io/jocatalin/kubernetes-bootcamp:v2']);
      assert.match(await env.k.ok(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=60s']), /successfully rolled out/);
      await eventually(async () => (await fetch(svcUrl).then((r) => r.text())).endsWith('| v=2\n'), 10_000, 'v2 answering');

      // A missing tag: the rollout stalls in ImagePullBackOff, and undo brings v2 back.
      await env.k.ok(['set', 'image', 'deployments/kubernetes-bootcamp', 'kubernetes-bootcamp=gcr.io/google-samples/kubernetes-bootcamp:v10']);
      const ref = 'gcr.io/google-samples/kubernetes-bootcamp:v10';
      const stuck = await eventually(async () => {
        const out = await env.k.ok(['get', 'pods']);
        return /\s0\/1\s+ImagePullBackOff\s/.test(out) && out;
      }, 20_000, 'a pod in ImagePullBackOff');
      assert.equal((stuck.match(/\s1\/1\s+Running\s/g) ?? []).length >= 3, true, `v2 pods keep serving\n${stuck}`);
      assert.doesNotMatch(await env.k.ok(['get', 'deployments']), /^kubernetes-bootcamp\s+4\/4/m);
      const describe = await env.k.ok(['describe', 'pods']);
      assert.ok(describe.includes(`Failed to pull image "${ref}": rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`), describe);
      assert.match(describe, new RegExp(`Back-off pulling image "${ref.replace(/[.:/]/g, '\\$&')}"`));
      const rollout = await env.k.run(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=2s']);
      assert.notEqual(rollout.code, 0, 'the rollout does not complete');
      assert.match(rollout.stdout, /Waiting for deployment "kubernetes-bootcamp" rollout to finish: \d+ out of 4 new replicas have been updated/);

      await env.k.ok(['rollout', 'undo', 'deployments/kubernetes-bootcamp']);
      assert.match(await env.k.ok(['rollout', 'status', 'deployments/kubernetes-bootcamp', '--timeout=60s']), /successfully rolled out/);
      await eventually(async () => {
        const pods = JSON.parse(await env.k.ok(['get', 'pods', '-o', 'json'])).items as Json[];
        return pods.length === 4 && pods.every((p) => p.spec.containers[0].image === 'docker.io/jocatalin/kubernetes-bootcamp:v2' && p.status.phase === 'Running');
      }, 20_000, 'four v2 pods after the undo');
      assert.ok((await fetch(svcUrl).then((r) => r.text())).endsWith('| v=2\n'));
    } finally {
      proxy.stop();
    }
    await env.k.ok(['delete', 'deployments/kubernetes-bootcamp', 'services/kubernetes-bootcamp']);
  });
});

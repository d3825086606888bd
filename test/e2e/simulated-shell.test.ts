// One shell everywhere (issue 26), through the real kubectl: a pod's own command runs in the shell `kubectl exec`
// runs; nginx logs every request that reaches it; `kubectl debug -i` ends with its shell and sees its target's
// processes; pods get the kube-api-access projected volume; df, mount, top and time exist; the API answers at
// https://kubernetes.default.svc as in the docs' "Accessing the Kubernetes API from a Pod".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { writeKubeconfig } from '../../src/cli/kubeconfig.js';
import { Kubectl, eventually } from '../helpers/kubectl.js';

/** nginx's default `combined` access line (as the API proxy's line), from `from`. */
const accessLine = (from: string, agent: string) => new RegExp(`^${from.replace(/\./g, '\\.')} - - \\[\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000\\] "GET / HTTP/1\\.1" 200 \\d+ "-" "${agent}" "-"$`, 'm');

function httpGet(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false, headers: { connection: 'close', 'user-agent': 'e2e-test' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.setTimeout(10_000, () => r.destroy(new Error('timeout')));
    r.end();
  });
}

describe('the simulated runtime, one shell everywhere', () => {
  let b: Bonsai;
  let dir: string;
  let k: Kubectl;
  const ipOf = async (pod: string) => k.ok(['get', 'pod', pod, '-o', 'jsonpath={.status.podIP}']);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bonsai-shell-'));
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'warn', addons: [] });
    const kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, b.url, { token: b.credentials.token });
    k = new Kubectl(kubeconfig);
    await k.ok(['run', 'web', '--image=nginx']);
    await k.ok(['run', 'box', '--image=busybox', '--', 'sleep', '3600']);
    await k.ok(['run', 'curl', '--image=curlimages/curl', '--', 'sleep', '3600']);
    await k.ok(['wait', '--for=condition=Ready', 'pod/web', 'pod/box', 'pod/curl', '--timeout=30s']);
  });
  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a pod's command runs in the exec shell: unknown programs, $?, files, nslookup and wget", async () => {
    await k.ok(['run', 't', '--image=busybox', '--restart=Never', '--', 'sh', '-c', 'foo; echo rc=$?; cat /etc/hostname']);
    await k.ok(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/t', '--timeout=30s']);
    assert.equal(await k.ok(['logs', 't']), 'sh: foo: not found\nrc=127\nt\n');
    const script = 'nslookup kubernetes.default; wget -qO- http://$WEB_IP';
    const webIP = await ipOf('web');
    await k.ok(['run', 'n', '--image=busybox', '--restart=Never', `--env=WEB_IP=${webIP}`, '--', 'sh', '-c', script]);
    await k.ok(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/n', '--timeout=30s']);
    const logs = await k.ok(['logs', 'n']);
    const exec = await k.ok(['exec', 'box', '--', 'sh', '-c', `WEB_IP=${webIP}; ${script}`]);
    assert.match(logs, /Name:\s+kubernetes\.default\.svc\.cluster\.local\nAddress: 10\.96\.0\.1/);
    assert.match(logs, /Welcome to nginx!/);
    assert.equal(logs, exec, 'the pod printed what exec prints');
    // An exit code and a long sleep still come from the command.
    await k.ok(['run', 'e', '--image=busybox', '--restart=Never', '--', 'sh', '-c', 'echo bye; exit 3']);
    await k.ok(['wait', '--for=jsonpath={.status.containerStatuses[0].state.terminated.exitCode}=3', 'pod/e', '--timeout=30s']);
  });

  it('nginx logs an access line for port-forward and in-cluster requests', async () => {
    const bg = k.start(['port-forward', 'pod/web', '0:80']);
    try {
      const m = await eventually(() => /Forwarding from 127\.0\.0\.1:(\d+)/.exec(bg.out()), 15_000, `port-forward to start (${bg.err()})`);
      assert.equal(await httpGet(Number((m as RegExpExecArray)[1])), 200);
      await eventually(async () => accessLine('127.0.0.1', 'e2e-test').test(await k.ok(['logs', 'web'])), 10_000, 'the port-forward access line');
    } finally {
      bg.stop();
      await bg.exited;
    }
    await k.ok(['exec', 'box', '--', 'wget', '-qO-', `http://${await ipOf('web')}`]);
    await k.ok(['exec', 'curl', '--', 'curl', '-s', `http://${await ipOf('web')}/`]);
    const logs = await k.ok(['logs', 'web']);
    assert.match(logs, accessLine(await ipOf('box'), 'Wget'));
    assert.match(logs, accessLine(await ipOf('curl'), 'curl/8\\.14\\.1'));
  });

  it('debug -it ends after exit, and with --target ps shows the target container', async () => {
    const sock = `bonsai-shell-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', sock, ...args], { encoding: 'utf8' });
    const cmd = `env KUBECONFIG=${k.kubeconfig} KUBECACHEDIR=${k.cacheDir} HOME=${k.cacheDir} ${k.binary} debug -it web --image=busybox --target=web --container=dbg -- sh; echo "kubectl exited $?"; sleep 30`;
    tmux('new-session', '-d', '-s', 'debug', '-x', '120', '-y', '30', cmd);
    try {
      const screen = () => tmux('capture-pane', '-p', '-t', 'debug');
      await eventually(() => /^\/ #\s*$/m.test(screen()), 15_000, `a prompt (${JSON.stringify(screen())})`);
      tmux('send-keys', '-t', 'debug', 'ps', 'Enter');
      await eventually(() => /^\s+1 root\s+0:00 nginx: master process/m.test(screen()) && /^\s+\d+ root\s+0:00 ps$/m.test(screen()), 10_000, `ps's output (${screen()})`);
      tmux('send-keys', '-t', 'debug', 'exit 3', 'Enter');
      await eventually(() => /kubectl exited 0/.test(screen()), 10_000, `kubectl to exit (${screen()})`);
    } finally {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    }
    await k.ok(['wait', '--for=jsonpath={.status.ephemeralContainerStatuses[0].state.terminated.exitCode}=3', 'pod/web', '--timeout=30s']);
  });

  it('pods get the kube-api-access projected volume, shown by describe', async () => {
    const pod = JSON.parse(await k.ok(['get', 'pod', 'box', '-o', 'json'])) as { spec: { volumes: Array<{ name: string; projected?: { defaultMode: number; sources: unknown[] } }>; containers: Array<{ volumeMounts: unknown[] }> } };
    const vol = pod.spec.volumes.find((v) => /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(v.name));
    assert.ok(vol, JSON.stringify(pod.spec.volumes));
    assert.deepEqual(vol.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' }, path: 'namespace' }] } },
      ],
    });
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [{ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    const described = await k.ok(['describe', 'pod', 'box']);
    assert.match(described, new RegExp(`Mounts:\\n\\s+/var/run/secrets/kubernetes\\.io/serviceaccount from ${vol.name} \\(ro\\)`));
    assert.match(described, new RegExp(`Volumes:\\n  ${vol.name}:\\n    Type:\\s+Projected \\(a volume that contains injected data from multiple sources\\)\\n    TokenExpirationSeconds:\\s+3607\\n    ConfigMapName:\\s+kube-root-ca\\.crt\\n    ConfigMapOptional:\\s+<nil>\\n    DownwardAPI:\\s+true`));
    assert.equal(await k.ok(['exec', 'box', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace']), 'default');
    // Opting out leaves the pod without it.
    await k.ok(['run', 'nomount', '--image=busybox', '--overrides={"spec":{"automountServiceAccountToken":false}}', '--', 'sleep', '60']);
    assert.equal(await k.ok(['get', 'pod', 'nomount', '-o', 'jsonpath={.spec.volumes}']), '');
  });

  it("df, mount, top and time; nginx's files; https to the API with the pod's token and CA", async () => {
    const df = await k.ok(['exec', 'box', '--', 'df']);
    assert.match(df, /^Filesystem\s+1K-blocks\s+Used\s+Available\s+Use% Mounted on$/m);
    assert.match(df, /^overlay\s+\d+\s+\d+\s+\d+\s+\d+% \/$/m);
    assert.match(df, /^tmpfs\s+\d+\s+\d+\s+\d+\s+\d+% \/var\/run\/secrets\/kubernetes\.io\/serviceaccount$/m);
    assert.match(await k.ok(['exec', 'box', '--', 'mount']), /^overlay on \/ type overlay \(rw,/m);
    const top = await k.ok(['exec', 'box', '--', 'top', '-b', '-n', '1']);
    assert.match(top, /^\s+PID\s+PPID USER\s+STAT/m);
    assert.match(top, /^\s+1\s+0 root\s+S .* sleep 3600$/m);
    const time = await k.run(['exec', 'box', '--', 'time', 'sleep', '1']);
    assert.equal(time.code, 0, time.stderr);
    assert.match(time.stderr, /^real\t0m 1\.\d\ds\nuser\t0m 0\.00s\nsys\t0m 0\.00s$/m);
    assert.match(await k.ok(['exec', 'web', '--', 'cat', '/usr/share/nginx/html/index.html']), /<title>Welcome to nginx!<\/title>/);
    assert.match(await k.ok(['exec', 'web', '--', 'cat', '/etc/nginx/nginx.conf']), /include \/etc\/nginx\/conf\.d\/\*\.conf;/);
    assert.match(await k.ok(['exec', 'web', '--', 'cat', '/etc/nginx/conf.d/default.conf']), /root\s+\/usr\/share\/nginx\/html;/);
    const tutorial = [
      'APISERVER=https://kubernetes.default.svc', 'SERVICEACCOUNT=/var/run/secrets/kubernetes.io/serviceaccount',
      'NAMESPACE=$(cat ${SERVICEACCOUNT}/namespace)', 'TOKEN=$(cat ${SERVICEACCOUNT}/token)', 'CACERT=${SERVICEACCOUNT}/ca.crt',
      'curl --cacert ${CACERT} --header "Authorization: Bearer ${TOKEN}" -X GET ${APISERVER}/api',
    ].join('\n');
    const api = JSON.parse(await k.ok(['exec', 'curl', '--', 'sh', '-c', tutorial])) as { kind: string; versions: string[] };
    assert.deepEqual([api.kind, api.versions], ['APIVersions', ['v1']]);
    const noCa = await k.run(['exec', 'curl', '--', 'curl', '-sS', 'https://kubernetes.default.svc/api']);
    assert.equal(noCa.code, 60, noCa.stderr);
    const pods = JSON.parse(await k.ok(['exec', 'box', '--', 'sh', '-c', 'wget -qO- --header "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" https://kubernetes.default.svc/api/v1/namespaces/default/pods'])) as { kind: string; items: Array<{ metadata: { name: string } }> };
    assert.equal(pods.kind, 'PodList');
    assert.ok(pods.items.some((p) => p.metadata.name === 'box'));
  });
});

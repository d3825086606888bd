// exec, attach and port-forward through real kubectl: 1.32 speaks WebSocket (port-forward tunnelled SPDY), 1.29
// speaks SPDY/3.1. The runtime is the stand-in of test/helpers/stand-in-runtime.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { writeKubeconfig } from '../../src/cli/kubeconfig.js';
import { installContainerRuntime } from '../../src/api/streaming/runtime.js';
import { Kubectl, eventually, type Background } from '../helpers/kubectl.js';
import { standInRuntime } from '../helpers/stand-in-runtime.js';

/** `1.32` for /usr/lib/google-cloud-sdk/bin/kubectl.1.32 (the path itself for other names). */
const versionOf = (binary: string) => /kubectl\.?(1\.\d+)?$/.exec(binary)?.[1] ?? binary;
const binaries = process.env.KUBECTL ? [process.env.KUBECTL] : ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/lib/google-cloud-sdk/bin/kubectl.1.29'];

function httpGet(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('error', reject);
    r.setTimeout(10_000, () => r.destroy(new Error('timeout')));
    r.end();
  });
}

async function forwardedPort(bg: Background): Promise<number> {
  const m = await eventually(() => /Forwarding from 127\.0\.0\.1:(\d+)/.exec(bg.out()), 15_000, `port-forward to start (${bg.err()})`);
  return Number((m as RegExpExecArray)[1]);
}

describe('exec, attach and port-forward', () => {
  let b: Bonsai;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bonsai-exec-'));
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'warn', addons: [] });
    installContainerRuntime(b.registry, standInRuntime);
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, b.url, { token: b.credentials.token });
    const k = new Kubectl(kubeconfig);
    await k.ok(['run', 'web', '--image=nginx']);
    await k.ok(['create', 'deployment', 'app', '--image=nginx']);
    await k.ok(['expose', 'deployment', 'app', '--port=8080', '--target-port=80']);
    await k.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=30s']);
    await k.ok(['wait', '--for=condition=Available', 'deployment/app', '--timeout=30s']);
  });
  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const binary of binaries) {
    const version = versionOf(binary);
    describe(`kubectl ${version}`, () => {
      let k: Kubectl;
      before(() => {
        k = new Kubectl(kubeconfig, binary);
      });

      it('exec runs a command and prints its output', async () => {
        const r = await k.run(['exec', 'web', '--', 'echo', 'hi']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'hi\n');
      });

      it('exec passes the exit code back', async () => {
        const r = await k.run(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
        assert.equal(r.code, 3, r.stderr);
        const f = await k.run(['exec', 'web', '--', 'fail']);
        assert.equal(f.code, 2);
        assert.equal(f.stderr.includes('oops'), true, f.stderr);
      });

      it('exec -i reads stdin to its end', async () => {
        const r = await k.run(['exec', '-i', 'web', '--', 'cat'], { input: 'line one\nline two\n' });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'line one\nline two\n');
      });

      it('exec carries large output whole', async () => {
        const r = await k.run(['exec', 'web', '--', 'big', '300000']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout.length, 300000);
      });

      it('exec into a missing container or pod fails as upstream', async () => {
        const c = await k.run(['exec', 'web', '-c', 'nope', '--', 'echo']);
        assert.notEqual(c.code, 0);
        assert.match(c.stderr, /container nope is not valid for pod web/);
        const p = await k.run(['exec', 'ghost', '--', 'echo']);
        assert.notEqual(p.code, 0);
        assert.match(p.stderr, /pods "ghost" not found/);
      });

      it('attach -i reaches the container and ends with stdin', async () => {
        const r = await k.run(['attach', '-i', 'web'], { input: 'bye\n' });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /attached to web\/web/);
      });

      for (const target of ['pod/web', 'svc/app', 'deploy/app']) {
        it(`port-forward ${target} answers HTTP on the local port`, async () => {
          const remote = target === 'svc/app' ? '8080' : '80';
          const bg = k.start(['port-forward', target, `0:${remote}`]);
          try {
            const port = await forwardedPort(bg);
            const first = await httpGet(port);
            assert.equal(first.status, 200);
            assert.match(first.body, target === 'pod/web' ? /^pod web port 80\n$/ : /^pod app-[a-z0-9]+-[a-z0-9]+ port 80\n$/);
            // A second connection over the same forward.
            const second = await httpGet(port);
            assert.equal(second.status, 200);
          } finally {
            bg.stop();
            await bg.exited;
          }
        });
      }
    });
  }
});

describe('exec and port-forward into the simulated runtime', () => {
  let b: Bonsai;
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bonsai-exec-'));
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'warn', addons: [] });
    kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, b.url, { token: b.credentials.token });
    const k = new Kubectl(kubeconfig);
    await k.ok(['run', 'web', '--image=nginx', '--env=GREETING=hello']);
    // A pod with a mounted ConfigMap, and a Service over three replicas whose page names each pod.
    await k.ok(['create', 'configmap', 'config', '--from-literal=key=from-the-configmap']);
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'cfg' },
      spec: { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'config', mountPath: '/etc/config' }] }], volumes: [{ name: 'config', configMap: { name: 'config' } }] },
    }) });
    await k.ok(['create', 'deployment', 'hello', '--image=example.com/hello:1', '--replicas=3', '--port=80']);
    await k.ok(['expose', 'deployment', 'hello', '--port=80']);
    await k.ok(['wait', '--for=condition=Ready', 'pod/web', 'pod/cfg', '--timeout=30s']);
    await k.ok(['rollout', 'status', 'deployment/hello', '--timeout=30s']);
  });
  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const binary of binaries) {
    const version = versionOf(binary);
    it(`kubectl ${version}: env, exit codes, stdin and the pod's page`, async () => {
      const k = new Kubectl(kubeconfig, binary);
      const env = await k.run(['exec', 'web', '--', 'env']);
      assert.equal(env.code, 0, env.stderr);
      assert.match(env.stdout, /^GREETING=hello$/m);
      assert.match(env.stdout, /^HOSTNAME=web$/m);
      const exit3 = await k.run(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
      assert.equal(exit3.code, 3, exit3.stderr);
      const hostname = await k.run(['exec', '-i', 'web', '--', 'sh'], { input: 'hostname\nexit 0\n' });
      assert.equal(hostname.code, 0, hostname.stderr);
      assert.match(hostname.stdout, /^web$/m);
      const bg = k.start(['port-forward', 'pod/web', '0:80']);
      try {
        const page = await httpGet(await forwardedPort(bg));
        assert.equal(page.status, 200);
        assert.match(page.body, /web/);
      } finally {
        bg.stop();
        await bg.exited;
      }
    });
  }

  for (const binary of binaries) {
    const version = versionOf(binary);
    it(`kubectl ${version}: a mounted ConfigMap, and wget to a Service name reaching every ready replica`, async () => {
      const k = new Kubectl(kubeconfig, binary);
      assert.equal(await k.ok(['exec', 'cfg', '--', 'cat', '/etc/config/key']), 'from-the-configmap');
      const pods = (JSON.parse(await k.ok(['get', 'pods', '-l', 'app=hello', '-o', 'json'])) as { items: Array<{ metadata: { name: string } }> }).items.map((p) => p.metadata.name);
      assert.equal(pods.length, 3);
      const out = await k.ok(['exec', 'cfg', '--', 'sh', '-c', 'for i in 1 2 3 4 5 6; do wget -qO- http://hello; done']);
      for (const name of pods) assert.ok(out.includes(name), `${name} answered: ${out}`);
    });
  }

  for (const binary of binaries) {
    const version = versionOf(binary);
    it(`kubectl ${version}: debug -i adds an ephemeral container and attaches to its shell`, async () => {
      const k = new Kubectl(kubeconfig, binary);
      const name = `dbg${version.replace('.', '')}`;
      const r = await k.run(['debug', 'web', '-i', '--image=busybox', `--container=${name}`, '--', 'sh'], { input: 'hostname\nexit 0\n' });
      assert.match(r.stdout, /^web$/m, `${r.stdout}\n${r.stderr}`);
      const pod = JSON.parse(await k.ok(['get', 'pod', 'web', '-o', 'json'])) as { spec: { ephemeralContainers?: Array<{ name: string }> } };
      assert.ok(pod.spec.ephemeralContainers?.some((c) => c.name === name));
    });

    it(`kubectl ${version}: exec -it through a real terminal gets a prompt and runs hostname`, async () => {
      const k = new Kubectl(kubeconfig, binary);
      const sock = `bonsai-exec-${process.pid}-${version}`;
      const tmux = (...args: string[]) => execFileSync('tmux', ['-L', sock, ...args], { encoding: 'utf8' });
      const cmd = `env KUBECONFIG=${kubeconfig} KUBECACHEDIR=${k.cacheDir} HOME=${k.cacheDir} ${binary} exec -it web -- sh; echo "kubectl exited $?"; sleep 30`;
      tmux('new-session', '-d', '-s', 'exec', '-x', '100', '-y', '20', cmd);
      try {
        const screen = () => tmux('capture-pane', '-p', '-t', 'exec');
        await eventually(() => /root@web:\/#\s*$/m.test(screen()), 15_000, `a prompt (${JSON.stringify(screen())})`);
        tmux('send-keys', '-t', 'exec', 'hostname', 'Enter');
        await eventually(() => /^web\s*$/m.test(screen()), 10_000, `hostname's output (${screen()})`);
        tmux('send-keys', '-t', 'exec', 'exit 4', 'Enter');
        await eventually(() => /kubectl exited 4/.test(screen()), 10_000, `kubectl to exit (${screen()})`);
      } finally {
        try {
          tmux('kill-server');
        } catch {
          // already gone
        }
      }
    });
  }
});

// The simulated shell through runtime.exec: environment, files, exit codes, quoting, pipes, control flow.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, podSpec, exec, createObject } from './exec-harness.js';

let h: Harness;
before(async () => {
  h = await Harness.start();
  await createObject(h, '', 'v1', 'configmaps', 'default', { metadata: { name: 'cfg' }, data: { key: 'value-from-configmap', other: 'x' } });
  await createObject(h, '', 'v1', 'secrets', 'default', { metadata: { name: 'sec' }, data: { password: Buffer.from('s3cret').toString('base64') } });
  await h.create(podSpec('web', {
    containers: [{
      name: 'c', image: 'nginx',
      env: [
        { name: 'GREETING', value: 'hello' }, { name: 'REF', value: '$(GREETING) world' },
        { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'key' } } },
        { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'sec', key: 'password' } } },
        { name: 'MY_POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'MY_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      ],
      envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
      volumeMounts: [{ name: 'config', mountPath: '/etc/config' }, { name: 'scratch', mountPath: '/data' }, { name: 'one', mountPath: '/etc/one.txt', subPath: 'other' }],
    }],
    volumes: [{ name: 'config', configMap: { name: 'cfg', defaultMode: 0o440 } }, { name: 'scratch', emptyDir: {} }, { name: 'one', configMap: { name: 'cfg' } }],
  }));
  await h.run(5000);
});
after(() => h.close());

test('env lists the container environment as the kubelet builds it', async () => {
  const r = await exec(h, 'web', ['env']);
  assert.equal(r.exitCode, 0);
  assert.equal(r.error, undefined);
  const env = new Map(r.out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.equal(env.get('GREETING'), 'hello');
  assert.equal(env.get('REF'), 'hello world');
  assert.equal(env.get('FROM_CM'), 'value-from-configmap');
  assert.equal(env.get('FROM_SECRET'), 's3cret');
  assert.equal(env.get('MY_POD'), 'web');
  assert.match(env.get('MY_IP') ?? '', /^10\.244\.1\.\d+$/);
  assert.equal(env.get('CFG_key'), 'value-from-configmap');
  assert.equal(env.get('HOSTNAME'), 'web');
  assert.equal(env.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
  assert.equal(env.get('HOME'), '/root');
  assert.ok(env.get('PATH')?.includes('/bin'));
  assert.equal((await exec(h, 'web', ['printenv', 'GREETING'])).out, 'hello\n');
  assert.equal((await exec(h, 'web', ['printenv', 'NOPE'])).exitCode, 1);
});

test('cat of a mounted ConfigMap key, ls -l shows the mode, subPath mounts one key', async () => {
  assert.deepEqual((await exec(h, 'web', ['cat', '/etc/config/key'])).out, 'value-from-configmap');
  const ls = await exec(h, 'web', ['ls', '-l', '/etc/config']);
  assert.match(ls.out, /^-r--r----- .* key$/m);
  assert.equal((await exec(h, 'web', ['cat', '/etc/one.txt'])).out, 'x');
  const missing = await exec(h, 'web', ['cat', '/etc/config/nope']);
  assert.equal(missing.exitCode, 1);
  assert.equal(missing.err, "cat: can't open '/etc/config/nope': No such file or directory\n");
  assert.equal((await exec(h, 'web', ['cat', '/etc/hostname'])).out, 'web\n');
  assert.match((await exec(h, 'web', ['cat', '/etc/resolv.conf'])).out, /^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\nnameserver 10\.96\.0\.10\n/);
  assert.match((await exec(h, 'web', ['cat', '/etc/hosts'])).out, /^10\.244\.1\.\d+\tweb$/m);
  assert.equal((await exec(h, 'web', ['cat', '/var/run/secrets/kubernetes.io/serviceaccount/namespace'])).out, 'default');
});

test('exit codes come back as a real sh gives them', async () => {
  assert.equal((await exec(h, 'web', ['sh', '-c', 'exit 3'])).exitCode, 3);
  assert.equal((await exec(h, 'web', ['sh', '-c', 'false'])).exitCode, 1);
  assert.equal((await exec(h, 'web', ['sh', '-c', 'exit 300'])).exitCode, 44);
  const nf = await exec(h, 'web', ['sh', '-c', 'nosuchcmd arg']);
  assert.equal(nf.exitCode, 127);
  assert.equal(nf.err, 'sh: nosuchcmd: not found\n');
  const top = await exec(h, 'web', ['nosuchcmd']);
  assert.match(top.error ?? '', /^Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuchcmd": executable file not found in \$PATH: unknown$/);
  assert.equal((await exec(h, 'web', ['sh', '-c', 'false; echo $?'])).out, '1\n');
  assert.equal((await exec(h, 'web', ['sh', '-c', 'if then'])).exitCode, 2);
});

test('quoting, variables, pipes, and-or lists, loops, command substitution', async () => {
  const sh = async (src: string) => (await exec(h, 'web', ['sh', '-c', src])).out;
  assert.equal(await sh(`echo "a  b" 'c  $HOME' $GREETING \${GREETING}x \${UNSET:-dflt}`), 'a  b c  $HOME hello hellox dflt\n');
  assert.equal(await sh('X="1 2"; for i in $X 3; do echo "[$i]"; done'), '[1]\n[2]\n[3]\n');
  assert.equal(await sh('true && echo yes || echo no; false && echo yes || echo no'), 'yes\nno\n');
  assert.equal(await sh('env | grep ^GREETING= | wc -l'), '1\n');
  // A command's prefixes override exported variables in place and add the others after them; unexported ones stay out.
  assert.equal(await sh('A=1; export B=2 C=3; B=x D=4 env E=5 | grep -E "^[A-E]="'), 'B=x\nC=3\nD=4\nE=5\n');
  assert.equal(await sh('export B=2; GREETING=hi printenv GREETING B A; echo $?; A=9 env printenv A'), 'hi\n2\n1\n9\n');
  assert.equal(await sh('echo "host is $(hostname)"'), 'host is web\n');
  assert.equal(await sh('i=0; while [ $i -lt 3 ]; do echo $i; i=$((i + 1)); done'), '0\n1\n2\n');
  assert.equal(await sh('echo $(( (2 + 3) * $GREETING_N 4 ))'), '');
  assert.equal(await sh('echo $(( (2 + 3) * 4 % 7 )) $((10 / 3))'), '6 3\n');
  assert.equal(await sh('cat /etc/config/key | tail -n 1; echo'), 'value-from-configmap\n');
  assert.equal(await sh('if [ -f /etc/config/key ]; then echo file; else echo none; fi'), 'file\n');
  assert.equal(await sh('sh -c "sh -c \'echo nested; exit 4\'"; echo $?'), 'nested\n4\n');
  assert.equal(await sh('sh -c \'echo $0-$1\' zero one; (exec false); echo $?; exec echo last; echo never'), 'zero-one\n1\nlast\n');
});

test('writes go to writable directories only', async () => {
  const r = await exec(h, 'web', ['sh', '-c', 'echo saved > /data/f && cat /data/f; echo x > /etc/config/y']);
  assert.equal(r.out, 'saved\n');
  assert.equal(r.err, "sh: can't create /etc/config/y: Read-only file system\n");
  assert.equal((await exec(h, 'web', ['cat', '/data/f'])).out, 'saved\n', 'emptyDir keeps its files between sessions');
});

test('a container that is not running cannot exec; unknown containers are rejected', async () => {
  await h.create(podSpec('crash', { containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 1'] }] }));
  await h.run(2000);
  const r = await exec(h, 'crash', ['env']);
  assert.equal(r.error, 'container not found ("c")');
  assert.equal((await exec(h, 'web', ['env'], { container: 'zz' })).error, 'container zz is not valid for pod web');
  assert.equal((await exec(h, 'nope', ['env'])).error, 'pods "nope" not found');
});

test('kubectl debug: an ephemeral container gets the same shell', async () => {
  const def = h.reg.find('', 'v1', 'pods')!;
  const cur = h.pod('web')!;
  await h.reg.update(def, 'default', 'web', () => ({ ...cur, spec: { ...cur.spec, ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'c', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }] } }) as never, { subresource: 'ephemeralcontainers' });
  await h.run(5000);
  // Its own volume mounts only (none here): the target container's ConfigMap is not mounted in it.
  const r = await exec(h, 'web', ['sh', '-c', 'hostname; test -e /etc/config/key || echo no-mounts'], { container: 'debugger' });
  assert.deepEqual([r.exitCode, r.error, r.out], [0, undefined, 'web\nno-mounts\n']);
});

// Safe defaults of `bonsai serve`: a non-loopback address needs TLS and authentication (or --insecure), the
// database, keys, tokens and kubeconfig are private files, and a malformed token file stops the start.
import { describe, it, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBonsai, startServer, stopAll, type ServerHandle } from '../helpers/server.js';
import { Kubectl } from '../helpers/kubectl.js';
import { noAddons } from '../helpers/cluster.js';
import { etcdTestMode } from '../helpers/etcd-process.js';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('safe defaults', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bonsai-safe-'));
  // Each test's servers are stopped when it ends (servers left running would slow the tests after it).
  let servers: ServerHandle[] = [];
  afterEach(async () => {
    const started = servers;
    servers = [];
    await stopAll(started);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const start = async (opts: { dataDir?: string; args: string[] }) => {
    const s = await startServer({ ...opts, args: [...noAddons, ...opts.args] });
    servers.push(s);
    return s;
  };

  it('refuses a non-loopback --host without TLS and authentication, in one line', async () => {
    // A mode list that allows everyone is no authentication: anonymous requests would read kube-system Secrets.
    const extras = [[], ['--tls'], ['--anonymous-auth=false'], ['--tls', '--authorization-mode', 'RBAC,AlwaysAllow'], ['--tls', '--authorization-mode', 'AlwaysAllow,RBAC']];
    // Independent refused starts: run at once, checked one by one.
    const runs = await Promise.all(extras.map((extra) => runBonsai(['serve', '--host', '0.0.0.0', '--port', '0', '--data', ':memory:', '--nodes', '0', ...extra])));
    for (const r of runs) {
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0], /^bonsai: refusing to serve on non-loopback address 0\.0\.0\.0 without .*\(pass --insecure to serve anyway\)$/);
    }
  });

  it('serves a non-loopback address with TLS and authentication, or with --insecure', async () => {
    const secured = await start({ args: ['--host', '0.0.0.0', '--tls', '--anonymous-auth=false', '--nodes', '0'] });
    assert.match(secured.url, /^https:\/\/127\.0\.0\.1:\d+$/, 'the URL names where to reach a wildcard address');
    assert.match(await new Kubectl(secured.kubeconfig).ok(['auth', 'whoami']), /bonsai-admin/);
    const insecure = await start({ args: ['--host', '0.0.0.0', '--insecure', '--nodes', '0'] });
    assert.equal((await fetch(`${insecure.url}/api`)).status, 200);
  });

  it('says why RBAC,AlwaysAllow is refused, and serves it with --insecure', async () => {
    const r = await runBonsai(['serve', '--host', '0.0.0.0', '--port', '0', '--data', ':memory:', '--nodes', '0', '--tls', '--authorization-mode', 'RBAC,AlwaysAllow']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /without an authorization mode list that denies by default \(--authorization-mode RBAC,AlwaysAllow lets anonymous requests do anything/);
    const insecure = await start({ args: ['--host', '0.0.0.0', '--tls', '--authorization-mode', 'RBAC,AlwaysAllow', '--insecure', '--nodes', '0'] });
    assert.match(await new Kubectl(insecure.kubeconfig).ok(['auth', 'whoami']), /bonsai-admin/);
  });

  it('refuses to start with an invalid or unpinned --cors-allowed-origins pattern', async () => {
    const refuse = (v: string) => runBonsai(['serve', '--port', '0', '--data', ':memory:', '--nodes', '0', '--cors-allowed-origins', v]);
    const [bad, loose] = await Promise.all([refuse('^https://(dash$'), refuse('//a\\.example(:|$),dash.example')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^bonsai: --cors-allowed-origins: "\^https:\/\/\(dash\$" is not a valid regular expression: error parsing regexp: missing closing \)/);
    assert.equal(loose.code, 1);
    assert.match(loose.stderr, /^bonsai: --cors-allowed-origins: "dash\.example" does not pin the start and end of the host in the Origin header; anchor each pattern/);
    assert.equal(loose.stdout, '');
  });

  it('keeps the database, keys, tokens and kubeconfig private (0600, folders 0700)', async () => {
    const s = await start({ args: ['--tls', '--nodes', '0'] });
    await new Kubectl(s.kubeconfig).ok(['create', 'configmap', 'written', '--from-literal=a=b']);
    // The SQLite store's files (the etcd test mode keeps objects in etcd: no database in the data dir).
    const database = etcdTestMode ? [] : ['bonsai.db', 'bonsai.db-wal', 'bonsai.db-shm'];
    for (const f of [...database, 'kubeconfig']) assert.equal(mode(join(s.dataDir, f)), 0o600, f);
    const pki = join(s.dataDir, 'pki');
    assert.equal(mode(pki), 0o700);
    const files = readdirSync(pki).sort();
    assert.deepEqual(files, ['admin-token', 'admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key']);
    for (const f of files) assert.equal(mode(join(pki, f)), 0o600, f);
    // A data folder Bonsai creates is private too.
    const fresh = join(scratch, 'new', 'data');
    const t = await start({ dataDir: fresh, args: ['--nodes', '0'] });
    assert.equal(mode(fresh), 0o700);
    if (!etcdTestMode) assert.equal(mode(join(fresh, 'bonsai.db')), 0o600);
  });

  it('refuses a malformed --token-auth-file with upstream\'s message', async () => {
    const file = join(scratch, 'tokens.csv');
    writeFileSync(file, 'good,user,1\nshort,user\n');
    const quoted = join(scratch, 'quoted.csv');
    writeFileSync(quoted, 'a"b,user,1\n');
    // Independent refused starts: run at once, checked one by one.
    const serve = (f: string) => runBonsai(['serve', '--port', '0', '--data', ':memory:', '--nodes', '0', '--token-auth-file', f]);
    const [r, q, missing] = await Promise.all([serve(file), serve(quoted), serve(join(scratch, 'nope.csv'))]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `bonsai: --token-auth-file: token file '${file}' must have at least 3 columns (token, user name, user uid), found 2`);
    assert.equal(q.stderr.trim(), 'bonsai: --token-auth-file: parse error on line 1: bare " in non-quoted-field');
    assert.match(missing.stderr, /^bonsai: --token-auth-file: open .*nope\.csv: no such file or directory\n$/);
  });
});

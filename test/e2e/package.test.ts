// Bonsai as an installed package: `npm pack` the built project, install the tarball into a scratch package with
// npm (offline: the dependencies come from npm's cache, pinned by a lockfile derived from the project's), then
// `import { startBonsai } from 'bonsai'` type-checks and runs there, and `npx bonsai serve` starts from it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';

interface LockEntry { dev?: boolean; devOptional?: boolean; peer?: boolean; [k: string]: unknown }
interface PackedFile { path: string }

const npm = (args: string[], cwd: string) => {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
  assert.equal(r.status, 0, `npm ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
};

describe('the npm package', () => {
  let scratch: string;
  let files: string[];
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'bonsai-pkg-'));
    // The suite has built dist/ already: pack it as it is (prepare would build again).
    const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], projectRoot)) as Array<{ filename: string; files: PackedFile[] }>;
    files = packed[0].files.map((f) => f.path);
    const tarball = packed[0].filename;
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    // The consumer's lockfile: Bonsai from the tarball, and the project's production dependencies at their locked
    // versions (a production install resolves the same tree), so npm needs nothing but its cache.
    const packages: Record<string, unknown> = {
      '': { name: 'scratch', dependencies: { bonsai: `file:${tarball}` } },
      'node_modules/bonsai': {
        version: pkg.version, resolved: `file:${tarball}`, license: pkg.license, engines: pkg.engines, bin: pkg.bin,
        dependencies: pkg.dependencies, peerDependencies: pkg.peerDependencies, peerDependenciesMeta: pkg.peerDependenciesMeta,
      },
    };
    for (const [path, entry] of Object.entries(lock.packages)) if (path && !entry.dev && !entry.devOptional) packages[path] = entry;
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module', dependencies: { bonsai: `file:${tarball}` } }));
    writeFileSync(join(scratch, 'package-lock.json'), JSON.stringify({ name: 'scratch', lockfileVersion: 3, requires: true, packages }));
    npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], scratch);
    // Install scripts are off (offline, better-sqlite3's would download a prebuilt addon): take the project's build.
    const release = join(scratch, 'node_modules', 'better-sqlite3', 'build', 'Release');
    mkdirSync(release, { recursive: true });
    copyFileSync(join(projectRoot, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(release, 'better_sqlite3.node'));
    // What a consumer adds for kubeConfig() (the optional peer dependency) and to type-check with Node's types.
    mkdirSync(join(scratch, 'node_modules', '@kubernetes'), { recursive: true });
    symlinkSync(join(projectRoot, 'node_modules', '@kubernetes', 'client-node'), join(scratch, 'node_modules', '@kubernetes', 'client-node'));
    mkdirSync(join(scratch, 'node_modules', '@types'), { recursive: true });
    // (protobufjs, under the etcd client, already brings a @types/node of its own.)
    if (!existsSync(join(scratch, 'node_modules', '@types', 'node'))) symlinkSync(join(projectRoot, 'node_modules', '@types', 'node'), join(scratch, 'node_modules', '@types', 'node'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('the tarball holds the compiled code, its types and the data runtime reads, and nothing from test/', () => {
    for (const f of ['package.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/main.d.ts', 'dist/src/cli/bin.js', 'dist/bundle/cli.js', 'dist/src/addons/parse-worker.js', 'dist/src/auth/pki/ca-worker.js', 'dist/src/storage/commit-worker.js',
      'openapi/swagger.json', 'migrations/0001_init.sql', 'src/addons/jobset/crds/jobset.x-k8s.io_jobsets.yaml', 'examples/pytest/conftest.py']) {
      assert.ok(files.includes(f), `${f} is packed`);
    }
    assert.ok(files.some((f) => f.startsWith('openapi/v3/')), 'OpenAPI v3 documents');
    assert.ok(files.some((f) => f.startsWith('proto/') && f.endsWith('generated.proto')), 'protobuf definitions');
    for (const addon of ['jobset', 'karpenter', 'keda', 'lws', 'sandbox', 'vpa']) assert.ok(files.some((f) => f.startsWith(`src/addons/${addon}/crds/`) && f.endsWith('.yaml')), `${addon} CRDs`);
    const stray = files.filter((f) => /(^|\/)test\//.test(f) || f.startsWith('dist/bench/') || (f.startsWith('src/') && f.endsWith('.ts')));
    assert.deepEqual(stray, []);
  });

  it('import { startBonsai } from "bonsai" type-checks and runs: lists namespaces with kubeConfig(), closes, exits', () => {
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
      files: ['app.ts', 'bad.ts'],
    }));
    const app = `import { startBonsai, WaitError, type Bonsai, type BonsaiOptions } from 'bonsai';
import { CoreV1Api } from '@kubernetes/client-node';

const opts: BonsaiOptions = { port: 0, data: ':memory:', addons: [] };
const bonsai: Bonsai = await startBonsai(opts);
const core = (await bonsai.kubeConfig()).makeApiClient(CoreV1Api);
const names: string[] = (await core.listNamespace()).items.map((n) => n.metadata?.name ?? '');
const node = (await core.listNode()).items[0].metadata!.name!;
await bonsai.waitForCondition('nodes', '', node, 'Ready', { timeoutMs: 10_000 });
const seen = bonsai.waitFor('configmaps', 'default', 'hello', (o) => o.data?.greeting === 'hi', { timeoutMs: 10_000 }).catch((e: unknown) => (e instanceof WaitError ? undefined : Promise.reject(e)));
await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hello' }, data: { greeting: 'hi' } } });
const cm = await seen;
const path: string = bonsai.kubeconfigPath;
console.log(JSON.stringify({ names, node, path, cm: cm?.metadata.name ?? null }));
await bonsai.close();
`;
    writeFileSync(join(scratch, 'app.ts'), app);
    // The types are real, not \`any\`: a mistyped option and a wrong predicate in bad.ts are errors; app.ts has none.
    writeFileSync(join(scratch, 'bad.ts'), `import { startBonsai } from 'bonsai';\nconst b = await startBonsai({ port: 'x' });\nb.waitFor('pods', 'default', 'p', 1);\n`);
    const tsc = spawnSync(process.execPath, [join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
    const errors = tsc.stdout.split('\n').filter((l) => l.includes('error TS'));
    assert.deepEqual(errors.map((l) => l.replace(/\(\d+,\d+\)/, (m) => m.slice(0, m.indexOf(',')) + ')').replace(/: error (TS\d+).*/, ' $1')), ['bad.ts(2) TS2322', 'bad.ts(3) TS2345'], tsc.stdout + tsc.stderr);
    // Run the same code as JavaScript (type annotations stripped by hand: Node 20 does not run TypeScript).
    const js = app.replace(', type Bonsai, type BonsaiOptions', '').replace('const opts: BonsaiOptions', 'const opts').replace('const bonsai: Bonsai', 'const bonsai')
      .replace('const names: string[]', 'const names').replace('(e: unknown)', '(e)').replace('const path: string', 'const path').replace('metadata!.name!', 'metadata.name');
    writeFileSync(join(scratch, 'app.mjs'), js);
    const run = spawnSync(process.execPath, ['app.mjs'], { cwd: scratch, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, `app.mjs: ${run.stdout}${run.stderr}`);
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!) as { names: string[]; node: string; path: string; cm: string | null };
    assert.deepEqual(out.names.sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.ok(out.node);
    assert.equal(out.cm, 'hello');
  });

  it('npx bonsai serve runs from the installed package', async () => {
    const p = spawn('npx', ['--offline', '--no-install', 'bonsai', 'serve', '--port', '0', '--data', ':memory:', '--output', 'json', '--addons', ''], { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => p.on('exit', resolve));
    const line = await new Promise<{ url: string; pid: number; token: string }>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`npx bonsai printed nothing in 20 s: ${out}${err}`)), 20_000);
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          clearTimeout(t);
          resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; pid: number; token: string });
        }
      });
    });
    const r = await fetch(`${line.url}/version`);
    assert.equal(r.status, 200);
    // The ready line names the server's own process (npx runs it as a child): stop that.
    process.kill(line.pid, 'SIGTERM');
    await exited;
  });
});

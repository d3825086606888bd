// Issue 23's install figure: on ONE server, the real projects' release manifests of test/fixtures/ecosystem/ applied
// one after another with the real kubectl as each project's docs say (server-side or client-side), in the order of
// the table below; the objects applied per second over the whole install, and the server's RSS once every Deployment
// the manifests create is Available (the server's CPU seconds for the install too: kubectl's own time and the
// machine's load are in the wall time). A file missing from the fixtures (projects added in parallel) is skipped.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseAllDocuments } from 'yaml';
import { cpuSecondsOf, root, rssOf, spawnServer } from './proc.js';
import { join, mb, rate, type Row } from './table.js';

const kubectl = process.env.KUBECTL ?? '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
const fixtures = joinPath(root, 'test', 'fixtures', 'ecosystem');

interface Step {
  /** Under test/fixtures/ecosystem/. */
  file: string;
  serverSide: boolean;
  /** kubectl arguments run after the file is applied (the docs' next step). */
  then?: string[];
}

/** In install order, as each project's docs say. */
const steps: Step[] = [
  // Kueue's docs wait for its controller before going on: its webhooks (failurePolicy Fail) match Deployments too.
  { file: 'kueue/manifests.yaml', serverSide: true, then: ['wait', 'deploy/kueue-controller-manager', '-n', 'kueue-system', '--for=condition=available', '--timeout=300s'] },
  // Experimental over standard is refused by Gateway API's own safe-upgrades policy unless it is deleted first.
  { file: 'gateway-api/standard-install.yaml', serverSide: true, then: ['delete', 'validatingadmissionpolicy', 'safe-upgrades.gateway.networking.k8s.io'] },
  { file: 'gateway-api/experimental-install.yaml', serverSide: true },
  { file: 'knative-serving/serving-crds.yaml', serverSide: false },
  { file: 'knative-serving/serving-core.yaml', serverSide: false },
  { file: 'knative-serving/kourier.yaml', serverSide: false,
    then: ['patch', 'configmap/config-network', '-n', 'knative-serving', '--type', 'merge', '-p', '{"data":{"ingress-class":"kourier.ingress.networking.knative.dev"}}'] },
  { file: 'ingress-nginx/deploy.yaml', serverSide: false },
  { file: 'cert-manager/cert-manager.yaml', serverSide: false },
  { file: 'gatekeeper/gatekeeper.yaml', serverSide: false },
];

function run(args: string[], cacheDir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(kubectl, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, KUBECONFIG: '/dev/null', KUBECACHEDIR: cacheDir, HOME: cacheDir } });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => { if (stderr.length < 4000) stderr += d.toString(); });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

const objectsIn = (path: string): number =>
  parseAllDocuments(readFileSync(path, 'utf8')).filter((d) => { const o = d.toJS() as { kind?: unknown } | null; return !!o && typeof o === 'object' && !!o.kind; }).length;

export async function ecosystemInstallRows(log: (msg: string) => void): Promise<Row[]> {
  const present = steps.filter((s) => existsSync(joinPath(fixtures, s.file)));
  for (const s of steps.filter((x) => !present.includes(x))) log(`   ecosystem install: ${s.file} not in the fixtures, skipped`);
  const objects = present.reduce((n, s) => n + objectsIn(joinPath(fixtures, s.file)), 0);
  const proc = spawnServer('bonsai', ':memory:');
  const cacheDir = mkdtempSync(joinPath(tmpdir(), 'bonsai-bench-kubecache-'));
  try {
    const k = ['--server', await proc.ready];
    const t0 = performance.now();
    const cpu0 = cpuSecondsOf(proc.pid);
    for (const s of present) {
      const t1 = performance.now();
      const r = await run([...k, 'apply', ...(s.serverSide ? ['--server-side'] : []), '-f', joinPath(fixtures, s.file)], cacheDir);
      if (r.code !== 0) throw new Error(`kubectl apply -f ${s.file}: ${r.stderr.slice(0, 1500)}`);
      const then = s.then && (await run([...k, ...s.then], cacheDir));
      if (then && then.code !== 0) throw new Error(`kubectl ${s.then!.join(' ')}: ${then.stderr.slice(0, 1500)}`);
      log(`   ecosystem install: ${s.file} in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    }
    const applyMs = performance.now() - t0;
    const applyCpu = cpuSecondsOf(proc.pid) - cpu0;
    const ready = await run([...k, 'wait', '--for=condition=Available', 'deployment', '--all', '--all-namespaces', '--timeout=300s'], cacheDir);
    if (ready.code !== 0) throw new Error(`deployments not Available: ${ready.stderr.slice(0, 1500)}`);
    const availableMs = performance.now() - t0;
    const { rssMB, hwmMB } = rssOf(proc.pid);
    log(`   ecosystem install: ${objects} objects from ${present.length} files applied in ${(applyMs / 1000).toFixed(1)} s (server CPU ${applyCpu.toFixed(1)} s), every Deployment Available after ${(availableMs / 1000).toFixed(1)} s; RSS ${mb(rssMB)} (peak ${mb(hwmMB)})`);
    const files = present.map((s) => s.file.split('/')[0]).filter((p, i, all) => all.indexOf(p) === i).join(', ');
    return [
      { figure: `24. ecosystem install: ${objects} objects of ${present.length} release manifests (${files}), kubectl apply as documented`, value: rate(objects / (applyMs / 1000)), baseline: '-', verdict: join(`${(applyMs / 1000).toFixed(1)} s applying (server CPU ${applyCpu.toFixed(1)} s)`, `${(availableMs / 1000).toFixed(1)} s to every Deployment Available`) },
      { figure: '24. RSS after the ecosystem install (VmRSS)', value: mb(rssMB), baseline: '-', verdict: `peak ${mb(hwmMB)}` },
    ];
  } finally {
    await proc.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

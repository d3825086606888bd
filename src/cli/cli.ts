// `bonsai serve`: starts the API server, writes (merges) a kubeconfig, prints the URL once requests are served, or with
// `--output json` one machine-readable line once everything has started.
import { Command, InvalidArgumentError, Option } from 'commander';
import { startBonsai, type Bonsai } from '../main.js';
import { defaultShutdownGraceMs } from '../api/graceful-close.js';
import { readyLine } from './ready-line.js';
import { ensurePrivateDir } from '../util/private-files.js';
import { maxClockSpeed } from '../util/clock-scaled.js';
import { parseGoDuration } from '../util/duration.js';
import { defaultBudget } from '../exec/shell/budget.js';

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0 picks a free one)');
  return n;
}
function etcdUrl(v: string): string {
  if (!/^etcd:\/\/[A-Za-z0-9.\-[\]:]+:\d{1,5}(,[A-Za-z0-9.\-[\]:]+:\d{1,5})*$/.test(v)) throw new InvalidArgumentError('must be etcd://HOST:PORT[,HOST:PORT]');
  return v;
}

/** A Go-style duration of one unit (`500ms`, `30s`, `5m`, `1h`) or `0`, in ms. */
function duration(v: string): number {
  const m = /^(\d{1,9})(ms|s|m|h)?$/.exec(v);
  if (!m || (!m[2] && m[1] !== '0')) throw new InvalidArgumentError('must be a duration such as 30s or 5m (0: never)');
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 'ms'] ?? 1);
}

function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return n;
}
function bool(v: string | undefined): boolean {
  if (v === undefined || v === 'true' || v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'True') return true;
  if (v === 'false' || v === '0' || v === 'f' || v === 'F' || v === 'FALSE' || v === 'False') return false;
  throw new InvalidArgumentError('must be true or false');
}
function collect(v: string, prev: string[]): string[] {
  return [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];
}
/** A comma list kept whole (an empty item is reported by the server, as upstream does); repeatable. */
function patterns(v: string, prev: string[]): string[] {
  return [...prev, ...(v === '' ? [] : v.split(','))];
}
function positive(v: string): number {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError('must be a positive number');
  return n;
}
function goDuration(v: string): number {
  const ms = parseGoDuration(v);
  if (ms === undefined || ms < 0) throw new InvalidArgumentError('must be a duration such as 1h0m0s, 30m or 0s');
  return ms;
}
function speed(v: string): number {
  const n = Number(v);
  if (!(n >= 0 && n <= maxClockSpeed)) throw new InvalidArgumentError(`must be a number from 0 (paused) to ${maxClockSpeed}`);
  return n;
}

const program = new Command('bonsai').description('A miniature Kubernetes in one Node.js process');
program
  .command('serve')
  .description('serve the Kubernetes API')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free port)', port, 6443)
  .option('--data <dir>', 'data directory, or :memory: to keep nothing on disk', '.bonsai')
  .option('--storage <url>', 'keep objects in etcd, shared with other Bonsai processes: etcd://HOST:PORT[,HOST:PORT] (default: SQLite in --data)', etcdUrl)
  .option('--etcd-compaction-interval <duration>', 'with --storage etcd: how often to compact etcd, keeping one interval of history (e.g. 5m, 30s; 0 never)', duration, 300_000)
  .option('--api-only', 'serve the API only: no controllers, scheduler, kubelets or add-ons (another process on the same --storage runs them)')
  .option('--kubeconfig <path>', 'where to write the kubeconfig (default <data>/kubeconfig)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent', 'warn')
  .addOption(new Option('--sync <mode>', 'SQLite synchronous mode').choices(['NORMAL', 'FULL']).default('NORMAL'))
  .addOption(new Option('--clock <mode>', 'simulated time: scaled (a multiple of real time) or virtual (jumps to the next timer whenever the server is idle)').choices(['scaled', 'virtual']).default('scaled'))
  .addOption(new Option('--event-ttl <duration>', 'how long an Event is kept after its last write, on the cluster clock (0s keeps them)').argParser(goDuration).default(3_600_000, '1h0m0s'))
  .option('--clock-speed <factor>', 'run controller and kubelet time this many times faster (0: start with the clock paused)', speed, 1)
  .option('--kubernetes-version <v>', 'version reported by /version', 'v1.35.0')
  .option('--nodes <n>', 'number of default worker nodes (0: an empty cluster, no GPU node either)', count)
  .option('--cluster <file>', 'YAML cluster file: node pools and kubelet timings')
  .option('--controllers <list>', 'controllers to run, as kube-controller-manager takes them: * for all, -name to disable (e.g. *,-deployment)', '*')
  .option('--addons <list>', 'add-ons to run (their CRDs installed at start), in the --controllers syntax: * for all, -name to disable (e.g. *,-sandbox); empty for none', '*')
  .option('--authorization-mode <modes>', 'AlwaysAllow, RBAC or AlwaysDeny, or a comma list tried in order (e.g. RBAC,AlwaysAllow)', 'AlwaysAllow')
  .option('--audit-log <path>', 'append audit.k8s.io/v1 Event lines to this file (- for stdout)')
  .addOption(new Option('--audit-level <level>', 'what audit events record').choices(['None', 'Metadata', 'Request', 'RequestResponse']).default('Metadata'))
  .option('--tls', 'serve HTTPS with a certificate from the cluster CA (generated once into <data>/pki); the kubeconfig then uses a client certificate')
  .option('--tls-san <name>', 'extra DNS name or IP for the serving certificate (repeatable)', collect, [] as string[])
  .option('--token-auth-file <file>', 'static tokens: a CSV of token,user,uid,"group1,group2"')
  .option('--anonymous-auth [bool]', 'requests without credentials are system:anonymous (true) or refused with 401 (false)', bool, true)
  .option('--insecure', 'allow a non-loopback --host without TLS and authentication')
  .option('--no-ui', 'do not serve the web dashboard under /ui/')
  .option('--kubelets <which>', 'simulated kubelets this process runs: leader (all nodes, while it leads), none (an API-only replica), a shard I/N of the nodes by name hash (0 <= I < N), or a node label selector', 'leader')
  .option('--max-requests-inflight <n>', 'read-only requests served at once (with priority and fairness: added to the next for the seats its levels share; 0: no limit without it)', count, 400)
  .option('--max-mutating-requests-inflight <n>', 'mutating requests served at once; beyond either limit a 429 with Retry-After (0: no limit without priority and fairness)', count, 200)
  .option('--enable-priority-and-fairness [bool]', 'API Priority and Fairness: classify requests by FlowSchema, queue them fairly per priority level (false: the max-in-flight limits instead)', bool, true)
  .option('--cors-allowed-origins <patterns>', 'origins whose web pages may call the API from a browser: Go regular expressions, comma separated, each pinned to the whole host (e.g. //dash\\.example\\.com(:|$)); other origins may not write or open streams', patterns, [] as string[])
  .addOption(new Option('--simulated-webhooks <mode>', 'admission webhooks whose service endpoints are simulated pods: allow (allowed without a patch, with a warning) or fail (as on a cluster where nothing listens: the failure policy decides); a service annotated bonsai.dev/forward-to: host:port is called there').choices(['allow', 'fail']).default('allow'))
  .option('--allowed-host <name>', 'a host name clients use to reach the server (repeatable); IP addresses and localhost always work', collect, [] as string[])
  .option('--exec-cpu-budget <seconds>', "CPU seconds one exec or attach session's simulated shell may spend; then it ends with exit code 137", positive, defaultBudget.cpuMs / 1000)
  .option('--exec-memory-budget <MiB>', "MiB one exec or attach session's simulated shell may produce (variables, output, pipes, files); then it ends with exit code 137", positive, defaultBudget.memoryBytes / 2 ** 20)
  .addOption(new Option('--output <format>', 'text: a banner once requests are served; json: one JSON line (url, port, kubeconfig, token, pid...) once everything has started').choices(['text', 'json']).default('text'))
  .action(async (o: {
    host: string; port: number; data: string; storage?: string; etcdCompactionInterval: number; apiOnly?: boolean; kubeconfig?: string; logLevel: string; sync: 'NORMAL' | 'FULL'; clock: 'scaled' | 'virtual'; clockSpeed: number; eventTtl: number; kubernetesVersion: string;
    nodes?: number; cluster?: string; controllers: string; addons: string; authorizationMode: string; auditLog?: string; auditLevel: 'None' | 'Metadata' | 'Request' | 'RequestResponse';
    tls?: boolean; tlsSan: string[]; tokenAuthFile?: string; anonymousAuth: boolean; insecure?: boolean; allowedHost: string[]; corsAllowedOrigins: string[]; simulatedWebhooks: 'allow' | 'fail'; output: 'text' | 'json'; ui: boolean; kubelets: string;
    maxRequestsInflight: number; maxMutatingRequestsInflight: number; enablePriorityAndFairness: boolean; execCpuBudget: number; execMemoryBudget: number;
  }) => {
    if (o.output === 'json' && o.auditLog === '-') throw new InvalidArgumentError('--audit-log - writes to stdout, which --output json keeps for its line: give a file');
    if (o.data !== ':memory:') ensurePrivateDir(o.data);
    // A signal may come while the rest starts: it stops the server once there is one.
    let bonsai: Bonsai | undefined;
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      // Requests get their grace period; should closing still hang past it, the process goes anyway.
      setTimeout(() => process.exit(1), defaultShutdownGraceMs + 5_000).unref();
      if (bonsai) bonsai.close().then(() => process.exit(0), () => process.exit(1));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (process.env.npm_lifecycle_event) stopWithParent(stop);
    bonsai = await startBonsai({
      host: o.host, port: o.port, data: o.data, storage: o.storage, ...(o.storage ? { compactEveryMs: o.etcdCompactionInterval } : {}), apiOnly: !!o.apiOnly, logLevel: o.logLevel, synchronous: o.sync, clock: o.clock, clockSpeed: o.clockSpeed, eventTtlMs: o.eventTtl, kubernetesVersion: o.kubernetesVersion,
      cluster: { nodes: o.nodes, clusterFile: o.cluster }, controllers: [o.controllers], addons: [o.addons], allowedHosts: o.allowedHost, corsAllowedOrigins: o.corsAllowedOrigins, simulatedWebhooks: o.simulatedWebhooks,
      authorizationMode: o.authorizationMode, auditLog: o.auditLog, auditLevel: o.auditLevel,
      tls: !!o.tls, tlsSans: o.tlsSan, tokenAuthFile: o.tokenAuthFile, anonymousAuth: o.anonymousAuth, insecure: !!o.insecure, kubeconfig: o.kubeconfig, ui: o.ui, kubelets: o.kubelets,
      maxRequestsInflight: o.maxRequestsInflight, maxMutatingRequestsInflight: o.maxMutatingRequestsInflight, enablePriorityAndFairness: o.enablePriorityAndFairness,
      execBudget: { cpuMs: o.execCpuBudget * 1000, memoryBytes: Math.round(o.execMemoryBudget * 2 ** 20) },
      // The banner goes out as soon as requests are served; controllers, scheduler and kubelets start meanwhile.
      // The kubeconfig (<data>/kubeconfig, or a temp folder removed on exit for :memory:) is merged into what is there.
      onListening(at) {
        const kubeconfig = at.kubeconfigPath;
        if (o.output === 'text') process.stdout.write(`Bonsai is serving the Kubernetes API at ${at.url} (kubeconfig: ${kubeconfig})${at.uiUrl ? `; dashboard at ${at.uiUrl}` : ''}\n`);
      },
    });
    if (o.output === 'json' && !stopping) process.stdout.write(`${readyLine(bonsai, o.data)}\n`);
    if (stopping) void bonsai.close().then(() => process.exit(0), () => process.exit(1));
  });

/**
 * Under `npm start` (the script execs node, so npm's forwarded SIGTERM arrives here), a killed npm would leave the
 * server orphaned, holding its port: notice the parent is gone and stop as on SIGTERM.
 */
function stopWithParent(stop: () => void): void {
  const parent = process.ppid;
  const t = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(t);
      stop();
    }
  }, 500);
  t.unref();
}

const node = program.command('node').description('stop or start a simulated node on a running server');
for (const [verb, stopped, what] of [['stop', true, "stop a node's kubelet (no lease renewals, no status, pods frozen)"], ['start', false, "start a stopped node's kubelet again"]] as const) {
  node
    .command(`${verb} <name>`)
    .description(what)
    .option('--kubeconfig <path>', 'kubeconfig of the server (default $KUBECONFIG or .bonsai/kubeconfig)')
    .option('--server <url>', 'server URL (instead of a kubeconfig)')
    .action(async (name: string, o: { kubeconfig?: string; server?: string }) => {
      // Loaded on use: it reads kubeconfigs with the YAML library, which `serve` does not load at start.
      const { resolveTarget, setNodeStopped } = await import('./node-command.js');
      process.stdout.write(`${await setNodeStopped(resolveTarget(o), name, stopped)}\n`);
    });
}

program
  .command('lesson [name]')
  .description('run a guided lesson against a running server (without a name: list the lessons)')
  .option('--kubeconfig <path>', 'kubeconfig of the server (default $KUBECONFIG or .bonsai/kubeconfig)')
  .option('--server <url>', 'server URL (instead of a kubeconfig)')
  .option('--hint-after <seconds>', 'print a hint after this many seconds without progress', positive, 30)
  .action(async (name: string | undefined, o: { kubeconfig?: string; server?: string; hintAfter: number }) => {
    const { lessonCommand } = await import('../lessons/lesson-command.js');
    process.exitCode = await lessonCommand(name, o);
  });

program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`bonsai: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

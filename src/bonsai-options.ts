// startBonsai's options (`bonsai serve`'s flags), and the credentials the generated kubeconfig carries: their own
// module, so the options check (options-check.ts) reads them without importing the composition root.
import type { ClusterOptions } from './cluster/index.js';
import type { AuditLevel } from './audit/audit-log.js';
import type { SimulatedWebhooks } from './admission/webhook/service-forward.js';

export interface BonsaiOptions {
  host?: string;
  port?: number;
  /** Data directory, or ':memory:'. */
  data?: string;
  logLevel?: string;
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * `--clock`: `scaled` (default) runs simulated time at `clockSpeed` times real time; `virtual` stands still while
   * anything is runnable and jumps to the next due timer when the process is idle. Both pause, resume and step
   * (`bonsai.clock`, or `POST /bonsai/v1/clock`).
   */
  clock?: 'scaled' | 'virtual';
  /** `--clock-speed`: the scaled clock's speed (default 1); 0 starts it paused. */
  clockSpeed?: number;
  kubernetesVersion?: string;
  /** Compaction interval in ms (0 disables). */
  compactEveryMs?: number;
  /**
   * `--storage`: `etcd://HOST:PORT[,HOST:PORT]` keeps the objects in etcd (shared with other Bonsai processes);
   * default: SQLite in `data` (or in memory).
   */
  storage?: string;
  /** `--api-only`: serve the API but run no controllers, scheduler, kubelets or add-ons (another process does). */
  apiOnly?: boolean;
  /** How long an Event lives after its last write (kube-apiserver's `--event-ttl`; default 1 h; 0 keeps them). */
  eventTtlMs?: number;
  /** The simulated nodes (default: 3 workers and a GPU node). */
  cluster?: ClusterOptions;
  /** Which controllers run, kube-controller-manager style: `['*']` (default), `['*', '-deployment']`, `['job']`. */
  controllers?: string[];
  /**
   * Which add-ons run (their CRDs installed, their controllers started, after the server listens), in the
   * `--controllers` syntax: `['*']` (default), `['*', '-sandbox']`, `['sandbox']`; `[]` runs none.
   */
  addons?: string[];
  /** `--authorization-mode`: `AlwaysAllow` (default), `RBAC`, or a comma list such as `RBAC,AlwaysAllow`. */
  authorizationMode?: string | string[];
  /** `--audit-log`: a file to append audit.k8s.io/v1 Event lines to (`-` for stdout); no audit log when unset. */
  auditLog?: string;
  /** `--audit-level`: None, Metadata (default), Request or RequestResponse. */
  auditLevel?: AuditLevel;
  /** Serve HTTPS with a certificate from the cluster CA (both generated once into `<data>/pki`). */
  tls?: boolean;
  /** Extra names (DNS names or IPs) for the serving certificate (`--tls-san`). */
  tlsSans?: string[];
  /** Upstream's static token CSV (`--token-auth-file`). */
  tokenAuthFile?: string;
  /** Requests without credentials are `system:anonymous` (true, the default) or refused with 401. */
  anonymousAuth?: boolean;
  /** Serve on a non-loopback address without TLS and authentication. */
  insecure?: boolean;
  /** Host header names served besides IP addresses, localhost and the listen host (`--allowed-host`). */
  allowedHosts?: string[];
  /**
   * `--cors-allowed-origins`: Go regular expressions matched against a request's Origin; pages from a matching
   * origin may call the API from a browser (CORS headers, preflights). Other origins' writes and upgrades are refused.
   */
  corsAllowedOrigins?: string[];
  /**
   * `--simulated-webhooks`: what answers an admission webhook whose Service's endpoints are simulated pods: `allow`
   * (the default: allowed without a patch, with a Warning) or `fail` (the call fails as it would on a real cluster
   * where nothing listens, and the webhook's failure policy decides).
   */
  simulatedWebhooks?: SimulatedWebhooks;
  /**
   * Called once requests are served, before the controllers, scheduler and simulated kubelets are loaded and started
   * (`startBonsai` resolves after that): the CLI prints its banner here.
   */
  onListening?: (at: { url: string; port: number; credentials: AdminCredentials; readonly kubeconfigPath: string; uiUrl?: string }) => void;
  /** Where `kubeconfigPath` writes the kubeconfig (default `<data>/kubeconfig`; a temp folder for ':memory:'). */
  kubeconfig?: string;
  /** Serve the web dashboard under /ui/ (default true; `--no-ui` turns it off). */
  ui?: boolean;
  /** `--max-requests-inflight`: read-only requests served at once (default 400; 0: no limit). */
  maxRequestsInflight?: number;
  /** `--max-mutating-requests-inflight`: mutating requests served at once (default 200; 0: no limit). */
  maxMutatingRequestsInflight?: number;
  /** `--enable-priority-and-fairness` (default true; false: the max-in-flight filter limits requests instead). */
  enablePriorityAndFairness?: boolean;
  /** The bytes streamed lists in flight may hold together (default 256 MiB) and how long a list may stall (default 60 s). */
  listLimits?: { maxBytesInflight?: number; stallMs?: number };
  /** On close, how long requests in flight may take to finish (default 5 s). */
  shutdownGraceMs?: number;
  /**
   * `--kubelets`: which simulated nodes this process runs: `leader` (default: all, while it leads), `none`, a shard
   * `I/N` or a label selector (those two whether it leads or not). See src/leader/kubelet-selection.ts.
   */
  kubelets?: string;
  /** This process's leader election identity (default `<hostname>_<uuid>`, as upstream's components). */
  identity?: string;
  /** `--exec-cpu-budget`/`--exec-memory-budget`: what one exec or attach session's simulated shell may spend (ms of CPU, bytes). */
  execBudget?: { cpuMs?: number; memoryBytes?: number };
}

/** How the generated kubeconfig authenticates: a client certificate over TLS, the admin token otherwise. */
export interface AdminCredentials {
  token: string;
  /** PEM, when serving TLS. */
  ca?: string;
  clientCert?: string;
  clientKey?: string;
}

// What well-known images print when they start with their own entrypoint (the tutorial app's start line, nginx's
// entrypoint and notices, redis' banner, ...), and what the documentation's `pi` Job prints. Lines are in the
// spirit of the real images' output, with the container's start time and host name.
import { normalizeImage } from './container-ids.js';
import { perlBpiDigits, piDigits } from './pi-digits.js';

export interface StartContext {
  /** The container's HOSTNAME (the pod's hostname or name). */
  hostname: string;
  /** Clock time of the start, in ms. */
  startMs: number;
  /** The pod's IP when known. */
  podIP?: string;
}

/** The repository of an image without registry defaults' noise: `docker.io/library/nginx`. */
export function repositoryOf(image: string): string {
  const n = normalizeImage(image);
  const at = n.indexOf('@');
  const name = at >= 0 ? n.slice(0, at) : n;
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

export function tagOf(image: string): string {
  const n = normalizeImage(image);
  if (n.includes('@')) return '';
  return n.slice(n.lastIndexOf(':') + 1);
}

const bootcampRepos = new Set(['gcr.io/google-samples/kubernetes-bootcamp', 'docker.io/jocatalin/kubernetes-bootcamp']);
export const isBootcamp = (image: string) => bootcampRepos.has(repositoryOf(image));

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** nginx's error-log time: `2026/01/01 12:00:00`. */
export function nginxTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** nginx's access-log time: `01/Jan/2026:12:00:00 +0000`. */
export function nginxAccessTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())}/${months[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

function redisTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

function apacheTime(ms: number): string {
  const d = new Date(ms);
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000 ${d.getUTCFullYear()}`;
}

function goLogTime(ms: number): string {
  return nginxTime(ms);
}

type Banner = (ctx: StartContext, tag: string) => string[];

const banners: Record<string, Banner> = {
  'docker.io/library/nginx': ({ startMs }) => {
    const t = nginxTime(startMs);
    return [
      '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
      '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
      '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
      '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
      '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
      '/docker-entrypoint.sh: Configuration complete; ready for start up',
      `${t} [notice] 1#1: using the "epoll" event method`,
      `${t} [notice] 1#1: nginx/1.29.3`,
      `${t} [notice] 1#1: built by gcc 14.2.0 (Debian 14.2.0-19)`,
      `${t} [notice] 1#1: OS: Linux 6.8.0-bonsai`,
      `${t} [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576`,
      `${t} [notice] 1#1: start worker processes`,
      `${t} [notice] 1#1: start worker process 29`,
      `${t} [notice] 1#1: start worker process 30`,
    ];
  },
  'docker.io/library/redis': ({ startMs }) => {
    const t = redisTime(startMs);
    return [
      `1:C ${t} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo`,
      `1:C ${t} * Redis version=7.4.1, bits=64, commit=00000000, modified=0, pid=1, just started`,
      `1:C ${t} # Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf`,
      `1:M ${t} * monotonic clock: POSIX clock_gettime`,
      `1:M ${t} * Running mode=standalone, port=6379.`,
      `1:M ${t} * Server initialized`,
      `1:M ${t} * Ready to accept connections tcp`,
    ];
  },
  'docker.io/library/httpd': ({ startMs, podIP }) => {
    const t = apacheTime(startMs);
    const fqdn = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${podIP ?? '10.244.0.2'}. Set the 'ServerName' directive globally to suppress this message`;
    return [fqdn, fqdn,
      `[${t}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4.65 (Unix) configured -- resuming normal operations`,
      `[${t}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'`];
  },
  'docker.io/library/postgres': ({ startMs }) => {
    const t = new Date(startMs).toISOString().replace('T', ' ').replace('Z', ' UTC');
    return [
      'PostgreSQL Database directory appears to contain a database; Skipping initialization', '',
      `${t} [1] LOG:  starting PostgreSQL 17.2 (Debian 17.2-1.pgdg120+1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit`,
      `${t} [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432`,
      `${t} [1] LOG:  database system is ready to accept connections`,
    ];
  },
  'gcr.io/google-samples/hello-app': ({ startMs }) => [`${goLogTime(startMs)} Server listening on port 8080`],
  'us-docker.pkg.dev/google-samples/containers/gke/hello-app': ({ startMs }) => [`${goLogTime(startMs)} Server listening on port 8080`],
  'registry.k8s.io/coredns/coredns': (_ctx, tag) => [
    'maxprocs: Leaving GOMAXPROCS=8: CPU quota undefined', '.:53',
    '[INFO] plugin/reload: Running configuration SHA512 = 591cf328cccc12bc490481273e738df59329c62c0b729d94e8b61db9961c2fa5f046dd37f1cf888b953814040d180f52594972691cd6ff41be96639138a43908',
    `CoreDNS-${tag.replace(/^v/, '')}`, 'linux/amd64, go1.23.3, 51e11f1',
  ],
  'registry.k8s.io/kube-proxy': ({ startMs }) => [klog(startMs, 'server_linux.go:66', '"Using iptables proxy"'), klog(startMs, 'shared_informer.go:320', 'Caches are synced for service config')],
  'registry.k8s.io/etcd': ({ startMs }) => [`{"level":"info","ts":"${new Date(startMs).toISOString()}","caller":"embed/etcd.go:140","msg":"configuring peer listeners","listen-peer-urls":["https://172.18.0.2:2380"]}`,
    `{"level":"info","ts":"${new Date(startMs).toISOString()}","caller":"etcdserver/server.go:2091","msg":"published local member to cluster through raft"}`],
  'registry.k8s.io/kube-apiserver': ({ startMs }) => [klog(startMs, 'options.go:238', 'external host was not specified, using 172.18.0.2'), klog(startMs, 'secure_serving.go:213', 'Serving securely on [::]:6443')],
  'registry.k8s.io/kube-controller-manager': ({ startMs }) => [klog(startMs, 'serving.go:386', 'Generated self-signed cert in-memory'), klog(startMs, 'leaderelection.go:271', 'successfully acquired lease kube-system/kube-controller-manager')],
  'registry.k8s.io/kube-scheduler': ({ startMs }) => [klog(startMs, 'serving.go:386', 'Generated self-signed cert in-memory'), klog(startMs, 'leaderelection.go:271', 'successfully acquired lease kube-system/kube-scheduler')],
};

/** A klog line: `I0101 12:00:00.000000       1 file.go:12] message`. */
function klog(ms: number, where: string, msg: string): string {
  const t = new Date(ms).toISOString();
  return `I${t.slice(5, 7)}${t.slice(8, 10)} ${t.slice(11, 23)}000       1 ${where}] ${msg}`;
}
for (const repo of bootcampRepos) {
  banners[repo] = ({ startMs, hostname }) => [`Kubernetes Bootcamp App Started At: ${new Date(startMs).toISOString()} | Running On:  ${hostname} `, ''];
}

/**
 * The output of a container at start: the `pi` Job's digits when its command is perl's bpi, the image's banner
 * when it runs its own entrypoint (no command), undefined otherwise (the interpreter or nothing decides).
 */
export function wellKnownOutput(image: string, command: string[] | undefined, args: string[] | undefined, ctx: StartContext): string[] | undefined {
  const argv = command?.length ? [...command, ...(args ?? [])] : [...(args ?? [])];
  const digits = perlBpiDigits(argv);
  if (digits !== undefined) return [piDigits(digits)];
  const repo = repositoryOf(image);
  // A command naming the image's own program (kube-proxy, etcd) still prints its banner; any other replaces it.
  if (command?.length && command[0].slice(command[0].lastIndexOf('/') + 1) !== repo.slice(repo.lastIndexOf('/') + 1)) return undefined;
  const banner = banners[repo];
  return banner ? banner(ctx, tagOf(image)) : undefined;
}

// Network tools: nslookup and getent hosts from the cluster's records; wget and curl to Service names, ClusterIPs
// and pod IPs, answered by the target pod's simulated HTTP responder.
import type { CmdContext, CommandFn } from '../shell/interp.js';
import type { ContainerInfo } from '../container-info.js';
import { clusterDnsIP } from '../container-fs.js';
import { respond, statusText, type HttpResponse } from '../responder.js';
import { FsError, resolvePath } from '../vfs.js';
import { logRequest } from '../../kubelet/well-known-http.js';
import { callApi } from '../api-access.js';

interface Url {
  scheme: string;
  host: string;
  port: number;
  path: string;
}

function parseUrl(raw: string): Url | undefined {
  const m = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?([^/:?#\s]+)(?::(\d{1,5}))?([/?][^\s#]*)?(?:#.*)?$/.exec(raw);
  if (!m) return undefined;
  const scheme = (m[1] ?? 'http').toLowerCase();
  const port = m[3] ? Number(m[3]) : scheme === 'https' ? 443 : 80;
  if (port < 1 || port > 65535) return undefined;
  const path = m[4] ? (m[4].startsWith('?') ? `/${m[4]}` : m[4]) : '/';
  return { scheme, host: m[2], port, path };
}

type Fetched = { res: HttpResponse; ip: string } | { error: 'resolve' | 'refused' | 'unreachable' | 'scheme'; ip?: string };

async function fetchUrl(info: ContainerInfo, url: Url, method: string, headers: Map<string, string>, body: Buffer): Promise<Fetched> {
  if (url.scheme !== 'http' && url.scheme !== 'https') return { error: 'scheme' };
  const r = info.network.resolve(url.host, info.pod);
  if (!r) return { error: 'resolve' };
  const ip = r.addresses[0];
  headers.set('host', url.port === (url.scheme === 'https' ? 443 : 80) ? url.host : `${url.host}:${url.port}`);
  if (url.scheme === 'https') {
    // Only the API server speaks TLS here (the simulated pods' servers speak plain HTTP).
    const res = await callApi(info, ip, url.port, { method, path: url.path, headers, body });
    return res === undefined ? { error: 'scheme' } : res === 'refused' ? { error: 'refused', ip } : { res, ip };
  }
  const self = info.pod.status?.podIP;
  const target = ip === '127.0.0.1' || ip === self ? { pod: info.pod, port: url.port } : info.network.connect(ip, url.port);
  if ('error' in target) return { error: target.error, ip };
  const res = respond(target.pod, { method, path: url.path, headers, body }, info.nowMs());
  // The server that answered logs the request as it does for any client (nginx's access line), from this pod's IP.
  const from = target.pod === info.pod ? '127.0.0.1' : info.pod.status?.podIP ?? '127.0.0.1';
  logRequest(info.client, target.pod, url.port, { method, path: url.path, userAgent: headers.get('user-agent'), remoteAddr: from }, res.status, res.body.length, info.nowMs());
  return { res, ip };
}

/** Whether curl's `--cacert FILE` names a readable certificate file (the cluster CA mounted into the pod). */
function caReadable(c: CmdContext, file: string): boolean {
  try {
    return c.shell.host.fs.readFile(resolvePath(c.shell.cwd, file)).toString('utf8').includes('BEGIN CERTIFICATE');
  } catch (e) {
    if (e instanceof FsError) return false;
    throw e;
  }
}

/** A `Name: value` header argument into `headers`. */
function addHeader(headers: Map<string, string>, h: string): void {
  const k = h.indexOf(':');
  if (k > 0) headers.set(h.slice(0, k).trim().toLowerCase(), h.slice(k + 1).trim());
}

function statusLine(res: HttpResponse): string {
  return `HTTP/1.1 ${res.status} ${statusText[res.status] ?? ''}`;
}

function save(c: CmdContext, file: string, data: Buffer): string | undefined {
  try {
    c.shell.host.fs.writeFile(resolvePath(c.shell.cwd, file), data, false, c.shell.host.nowMs());
    return undefined;
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    return e.reason;
  }
}

export function netCommands(info: ContainerInfo): Map<string, CommandFn> {
  const m = new Map<string, CommandFn>();
  m.set('nslookup', async ({ argv, stdout, stderr }) => {
    const name = argv.slice(1).find((a) => !a.startsWith('-'));
    if (!name) {
      stderr.write('Usage: nslookup [-type=QUERY_TYPE] [-debug] HOST [DNS_SERVER]\n');
      return 1;
    }
    stdout.write(`Server:\t\t${clusterDnsIP}\nAddress:\t${clusterDnsIP}:53\n\n`);
    const r = info.network.resolve(name, info.pod);
    if (!r) {
      stdout.write(`** server can't find ${name}: NXDOMAIN\n\n`);
      return 1;
    }
    for (const a of r.addresses) stdout.write(`Name:\t${r.name}\nAddress: ${a}\n`);
    stdout.write('\n');
    return 0;
  });
  m.set('getent', async ({ argv, stdout, stderr }) => {
    if (argv[1] !== 'hosts' && argv[1] !== 'ahosts') {
      stderr.write(`getent: unsupported database '${argv[1] ?? ''}'\n`);
      return 1;
    }
    let code = 0;
    for (const n of argv.slice(2)) {
      const r = info.network.resolve(n, info.pod);
      if (!r) code = 2;
      else stdout.write(`${r.addresses[0].padEnd(15)} ${r.name}\n`);
    }
    return code;
  });
  m.set('wget', async (c) => {
    let quiet = false;
    let out: string | undefined;
    let url: string | undefined;
    let spider = false;
    const headers = new Map([['user-agent', 'Wget'], ['accept', '*/*']]);
    for (let i = 1; i < c.argv.length; i++) {
      const a = c.argv[i];
      if (a === '--header') addHeader(headers, c.argv[++i] ?? '');
      else if (a.startsWith('--header=')) addHeader(headers, a.slice('--header='.length));
      else if (a === '-q' || a === '--quiet') quiet = true;
      else if (a === '-O' || a === '--output-document') out = c.argv[++i];
      else if (a.startsWith('-O')) out = a.slice(2);
      else if (a === '-qO' || a === '-qO-') (quiet = true), (out = a === '-qO-' ? '-' : c.argv[++i]);
      else if (a === '--spider') spider = true;
      else if (a === '-T' || a === '--timeout' || a === '-U') i++;
      else if (!a.startsWith('-')) url = a;
    }
    if (!url) {
      c.stderr.write('BusyBox v1.37.0 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-T SEC] URL...\n');
      return 1;
    }
    const u = parseUrl(url);
    if (!u) {
      c.stderr.write(`wget: bad address '${url}'\n`);
      return 1;
    }
    const f = await fetchUrl(info, u, spider ? 'HEAD' : 'GET', headers, Buffer.alloc(0));
    if ('error' in f) {
      if (f.error === 'scheme') c.stderr.write(`wget: not an http or ftp url: ${url}\n`);
      else if (f.error === 'resolve') c.stderr.write(`wget: bad address '${u.host}'\n`);
      else c.stderr.write(`${quiet ? '' : `Connecting to ${u.host}:${u.port} (${f.ip}:${u.port})\n`}wget: can't connect to remote host (${f.ip}): ${f.error === 'refused' ? 'Connection refused' : 'Connection timed out'}\n`);
      return 1;
    }
    if (!quiet) c.stderr.write(`Connecting to ${u.host}${u.port === (u.scheme === 'https' ? 443 : 80) ? '' : `:${u.port}`} (${f.ip}:${u.port})\n`);
    if (f.res.status >= 400) {
      c.stderr.write(`wget: server returned error: ${statusLine(f.res)}\n`);
      return 1;
    }
    if (spider) {
      if (!quiet) c.stderr.write('remote file exists\n');
      return 0;
    }
    const target = out ?? (u.path.split('?')[0].split('/').pop() || 'index.html');
    if (target === '-') {
      if (!quiet) c.stderr.write('writing to stdout\n');
      c.stdout.write(f.res.body);
    } else {
      if (!quiet) c.stderr.write(`saving to '${target}'\n`);
      const err = save(c, target, f.res.body);
      if (err) {
        c.stderr.write(`wget: can't open '${target}': ${err}\n`);
        return 1;
      }
    }
    if (!quiet) c.stderr.write(`${target === '-' ? '-' : target.padEnd(20)}${' '.repeat(Math.max(1, 21 - (target === '-' ? 1 : Math.max(20, target.length))))}100% |********************************|  ${f.res.body.length}  0:00:00 ETA\n${target === '-' ? 'written to stdout' : `'${target}' saved`}\n`);
    return 0;
  });
  m.set('curl', async (c) => {
    let silent = false;
    let showErr = false;
    let include = false;
    let head = false;
    let fail = false;
    let out: string | undefined;
    let method: string | undefined;
    let data: string | undefined;
    let trusted = false;
    const headers = new Map<string, string>([['user-agent', 'curl/8.14.1'], ['accept', '*/*']]);
    let url: string | undefined;
    for (let i = 1; i < c.argv.length; i++) {
      const a = c.argv[i];
      if (a.startsWith('--')) {
        if (a === '--silent') silent = true;
        else if (a === '--show-error') showErr = true;
        else if (a === '--include') include = true;
        else if (a === '--head') head = true;
        else if (a === '--fail') fail = true;
        else if (a === '--output') out = c.argv[++i];
        else if (a === '--request') method = c.argv[++i];
        else if (a === '--data' || a === '--data-raw') data = c.argv[++i];
        else if (a === '--header') addHeader(headers, c.argv[++i] ?? '');
        else if (a === '--insecure') trusted = true;
        else if (a === '--cacert') trusted = caReadable(c, c.argv[++i] ?? '');
        else if (a === '--max-time' || a === '--connect-timeout' || a === '--user-agent') i++;
        continue;
      }
      if (a.startsWith('-') && a.length > 1) {
        for (let j = 1; j < a.length; j++) {
          const f = a[j];
          const val = () => a.slice(j + 1) || c.argv[++i];
          if (f === 's') silent = true;
          else if (f === 'S') showErr = true;
          else if (f === 'i') include = true;
          else if (f === 'I') head = true;
          else if (f === 'f') fail = true;
          else if (f === 'k') trusted = true;
          else if (f === 'o' || f === 'X' || f === 'd' || f === 'H' || f === 'm' || f === 'A') {
            const v = val() ?? '';
            if (f === 'o') out = v;
            else if (f === 'X') method = v;
            else if (f === 'd') data = v;
            else if (f === 'H') addHeader(headers, v);
            break;
          }
        }
        continue;
      }
      url = a;
    }
    const err = (code: number, msg: string) => {
      if (!silent || showErr) c.stderr.write(`curl: (${code}) ${msg}\n`);
      return code;
    };
    if (!url) return err(2, 'no URL specified');
    const u = parseUrl(url);
    if (!u) return err(3, 'URL rejected: Malformed input to a URL function');
    const body = Buffer.from(data ?? '');
    if (data !== undefined) headers.set('content-type', 'application/x-www-form-urlencoded');
    if (u.scheme === 'https' && !trusted) return err(60, 'SSL certificate problem: unable to get local issuer certificate');
    const f = await fetchUrl(info, u, method ?? (head ? 'HEAD' : data !== undefined ? 'POST' : 'GET'), headers, body);
    if ('error' in f) {
      if (f.error === 'scheme') return err(u.scheme === 'https' ? 35 : 1, u.scheme === 'https' ? 'TLS connect error: the simulated servers speak plain HTTP' : `Protocol "${u.scheme}" not supported`);
      if (f.error === 'resolve') return err(6, `Could not resolve host: ${u.host}`);
      if (f.error === 'refused') return err(7, `Failed to connect to ${u.host} port ${u.port} after 0 ms: Couldn't connect to server`);
      return err(28, `Failed to connect to ${u.host} port ${u.port} after 10000 ms: Timeout was reached`);
    }
    if (fail && f.res.status >= 400) return err(22, `The requested URL returned error: ${f.res.status}`);
    const headText = `${statusLine(f.res)}\r\n${f.res.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
    const payload = Buffer.concat([include || head ? Buffer.from(headText) : Buffer.alloc(0), head ? Buffer.alloc(0) : f.res.body]);
    if (out !== undefined && out !== '-') {
      const e = save(c, out, payload);
      if (e) return err(23, `Failure writing output to destination, passed ${payload.length} returned 0`);
    } else c.stdout.write(payload);
    return 0;
  });
  return m;
}

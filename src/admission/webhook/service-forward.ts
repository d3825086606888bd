// Webhook Services on this machine. Install manifests point their webhooks at Services whose pods are simulated, so
// nothing listens behind them. Two ways out, both decided per Service:
// - The Service carries `bonsai.dev/forward-to`, naming where its real server listens on this machine: either one
//   `host:port` for every port, or `servicePort=host:port` entries separated by commas. Only loopback and this
//   machine's own addresses may be named (anyone who may annotate a Service may choose where the API server posts).
// - Otherwise, with `--simulated-webhooks=allow` (the default), the simulation answers for the pods: the request is
//   allowed without a patch, with a warning naming the webhook. `--simulated-webhooks=fail` keeps upstream's failure.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isRecord, type KObject } from '../../machinery/types.js';

export const forwardAnnotation = 'bonsai.dev/forward-to';

export type SimulatedWebhooks = 'allow' | 'fail';
export const simulatedWebhookModes: readonly SimulatedWebhooks[] = ['allow', 'fail'];

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(i.address);
  return out;
}

/** Addresses this process can actually connect to: loopback and its own interfaces. */
export function reachable(ip: string): boolean {
  if (ip === '::1' || ip.startsWith('127.')) return true;
  return localAddresses().has(ip);
}

/** `host:port` or `[v6]:port` as a host and a port; undefined when it is neither. */
function hostAndPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1] ?? m[2], port };
}

/** Where the annotation forwards `servicePort` of `svc`: a reachable address, an error text, or undefined (none). */
export function forwardTarget(svc: KObject, servicePort: number): { host: string; port: number } | { error: string } | undefined {
  const raw = isRecord(svc.metadata.annotations) ? svc.metadata.annotations[forwardAnnotation] : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const entries = raw.split(',').slice(0, 64).map((e) => e.trim()).filter(Boolean);
  let chosen: string | undefined;
  for (const e of entries) {
    const eq = e.indexOf('=');
    if (eq < 0) chosen ??= e;
    else if (Number(e.slice(0, eq)) === servicePort) chosen = e.slice(eq + 1);
  }
  if (chosen === undefined) return undefined;
  const hp = hostAndPort(chosen);
  if (!hp) return { error: `annotation ${forwardAnnotation}: ${JSON.stringify(chosen)} is not host:port` };
  const host = hp.host === 'localhost' ? '127.0.0.1' : hp.host;
  if (!isIP(host) || !reachable(host)) return { error: `annotation ${forwardAnnotation}: ${host} is not an address of this machine` };
  return { host, port: hp.port };
}

/** The Warning a request gets when a simulated webhook let it through. */
export function simulatedWarning(hook: string, service: string): string {
  return `webhook "${hook}" is served by simulated pods (service ${service}): allowed without calling it; run its server on this machine and annotate the service with ${forwardAnnotation}, or start with --simulated-webhooks=fail to refuse instead`;
}

// What well-known utility images do to the API when their simulated container starts. Install manifests run them
// in Jobs whose results other pods wait for: ingress-nginx's (and others') kube-webhook-certgen `create` makes the
// webhook's serving Secret, and `patch` writes that CA into the WebhookConfiguration's caBundle. Nothing runs in a
// simulated container, so the kubelet does their writes for them, as the pod's ServiceAccount (RBAC applies, as it
// would to the real program). A failed write is logged at debug, as the real Job would log and retry; `patch` run
// before its Secret exists fails (exit 1, restarted by its Job) as the program does.
import type { Client } from '../client/client.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { serviceAccountUser } from '../auth/identities.js';
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import { containerEnv, type ImageOutcome } from './container-plan.js';

type Log = (msg: string, err?: unknown) => void;

/** `--name=value` and `--name value` flags of a command line, after `$(VAR)` expansion. */
function flags(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length && i < 256; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.set(a.slice(2, eq), a.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.set(a.slice(2), argv[++i]);
    else out.set(a.slice(2), 'true');
  }
  return out;
}

const isCertgen = (image: string) => /(^|\/)kube-webhook-certgen(:|@|$)/.test(image);

/** The subcommand and flags a certgen container runs with, or undefined for any other image. */
export function certgenInvocation(pod: Pod, spec: Container): { command: string; flags: Map<string, string> } | undefined {
  if (!isCertgen(spec.image ?? '')) return undefined;
  const env = containerEnv(pod, spec);
  const expand = (s: string) => s.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => env[n] ?? m);
  const argv = [...(spec.command ?? []), ...(spec.args ?? [])].map(expand);
  const command = argv.find((a) => a === 'create' || a === 'patch');
  return command ? { command, flags: flags(argv) } : undefined;
}

async function createSecret(client: Client, ns: string, f: Map<string, string>): Promise<void> {
  const name = f.get('secret-name');
  if (!name || client.get('v1/secrets', ns, name)) return;
  const { ClusterCa, generateCa } = await import('../auth/pki/cluster-ca.js');
  const ca = await generateCa('certgen-ca');
  const hosts = (f.get('host') ?? '').split(',').slice(0, 100).map((h) => h.trim()).filter((h) => h && h.length <= 253);
  const serving = await new ClusterCa(ca.certPem, ca.keyPem).issueKeyPair('server', [{ O: ['nil2'] }], 365, { dns: hosts, ips: [] });
  if (client.get('v1/secrets', ns, name)) return;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  await client.create('v1/secrets', ns, {
    apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns },
    data: { [f.get('ca-name') ?? 'ca']: b64(ca.certPem), [f.get('cert-name') ?? 'cert']: b64(serving.certPem), [f.get('key-name') ?? 'key']: b64(serving.keyPem) },
  });
}

async function patchWebhooks(client: Client, ns: string, f: Map<string, string>): Promise<void> {
  const webhook = f.get('webhook-name');
  const secret = f.get('secret-name') ? client.get('v1/secrets', ns, f.get('secret-name') ?? '') : undefined;
  const ca = isRecord(secret?.data) ? secret.data[f.get('ca-name') ?? 'ca'] : undefined;
  if (!webhook || typeof ca !== 'string') return;
  const policy = f.get('patch-failure-policy');
  const kinds: [string, boolean][] = [
    ['admissionregistration.k8s.io/v1/validatingwebhookconfigurations', f.get('patch-validating') !== 'false'],
    ['admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', f.get('patch-mutating') !== 'false'],
  ];
  for (const [res, wanted] of kinds) {
    if (!wanted || !client.get(res, '', webhook)) continue;
    await client.guaranteedUpdate(res, '', webhook, (cur: KObject) => {
      const hooks = Array.isArray(cur.webhooks) ? cur.webhooks.filter(isRecord) : [];
      const next = hooks.map((h) => ({
        ...h, clientConfig: { ...(isRecord(h.clientConfig) ? h.clientConfig : {}), caBundle: ca },
        ...(policy ? { failurePolicy: policy } : {}),
      }));
      return { ...cur, webhooks: next };
    });
  }
}

/**
 * Why certgen `patch` cannot run yet, as the program fails then (exit 1 with its log; the Job's pod restarts and tries
 * again): its Secret is not there (the `create` Job, started at the same time, has not written it yet) or has no CA.
 */
function patchPrecondition(client: Client, ns: string, f: Map<string, string>): ImageOutcome | undefined {
  const name = f.get('secret-name') ?? '';
  const secret = client.get('v1/secrets', ns, name);
  const fatal = (msg: string) => JSON.stringify({ level: 'fatal', msg });
  if (!secret) {
    return { exitCode: 1, lines: [JSON.stringify({ err: `secrets "${name}" not found`, level: 'info', msg: 'no secret found' }), fatal(`no secret with '${name}' in '${ns}'`)] };
  }
  if (!isRecord(secret.data) || typeof secret.data[f.get('ca-name') ?? 'ca'] !== 'string') return { exitCode: 1, lines: [fatal("got secret, but it did not contain a 'ca' key")] };
  return undefined;
}

/**
 * Runs the API effects of `spec`'s image, if it has any, as the pod's ServiceAccount; returns how the container ends
 * instead of its default when the program fails at once.
 */
export function runImageEffects(client: Client, pod: Pod, spec: Container, log: Log): ImageOutcome | undefined {
  const call = certgenInvocation(pod, spec);
  if (!call) return undefined;
  const ns = pod.metadata?.namespace ?? 'default';
  const sa = pod.spec?.serviceAccountName ?? 'default';
  const as = client.as(serviceAccountUser(ns, sa));
  const target = call.flags.get('namespace') ?? ns;
  if (call.command === 'patch') {
    const failed = patchPrecondition(as, target, call.flags);
    if (failed) return failed;
  }
  const run = call.command === 'create' ? createSecret(as, target, call.flags) : Promise.resolve().then(() => patchWebhooks(as, target, call.flags));
  run.catch((e: unknown) => log(`kube-webhook-certgen ${call.command} in pod ${ns}/${pod.metadata?.name ?? ''} failed`, e));
  return undefined;
}

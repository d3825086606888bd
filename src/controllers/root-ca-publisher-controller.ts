// root-ca-certificate-publisher (kube-controller-manager's root-ca-cert-publisher): every active namespace holds
// ConfigMap kube-root-ca.crt with the cluster CA's certificate (`ca.crt`) and upstream's description annotation;
// one deleted is created again and one changed is set back (other annotations and labels are left as they are).
// The CA is the cluster's own (the one that signs the serving certificate with --tls, CSRs and client
// certificates; created on first use). Served over plain HTTP, Bonsai presents no certificate for it to verify,
// but it is still the CA that signs the cluster's certificates, so it is published all the same.
import type { Client } from '../client/client.js';
import { securityOf } from '../client/services.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

export const rootCaConfigMap = 'kube-root-ca.crt';
const descriptionKey = 'kubernetes.io/description';
const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the '
  + 'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** True when the ConfigMap holds exactly the published data and the description. */
function upToDate(cm: KObject, pem: string): boolean {
  const data = cm.data as Record<string, unknown> | undefined;
  if (!data || Object.keys(data).length !== 1 || data['ca.crt'] !== pem) return false;
  return cm.metadata.annotations?.[descriptionKey] === description;
}

export class RootCaPublisherController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];
  private pem: Promise<string> | undefined;

  constructor(private readonly client: Client, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('root-ca-certificate-publisher', (ns) => this.reconcile(ns), clock, log);
    this.stops.push(client.watch('v1/namespaces', (c) => c.type !== 'DELETED' && this.queue.add(c.object.metadata.name ?? '')));
    this.stops.push(client.watch('v1/configmaps', (c) => c.object.metadata.name === rootCaConfigMap && this.queue.add(c.object.metadata.namespace ?? '')));
    for (const ns of client.list('v1/namespaces')) this.queue.add(ns.metadata.name ?? '');
  }

  private caPem(): Promise<string> {
    this.pem ??= securityOf(this.client).pki.ca().then((ca) => ca.certPem);
    return this.pem;
  }

  private async reconcile(namespace: string): Promise<void> {
    const pem = await this.caPem();
    const ns = this.client.get('v1/namespaces', '', namespace);
    // As upstream: only active namespaces (a terminating one refuses new objects anyway).
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') return;
    const def = this.client.resource('v1/configmaps')!;
    const cur = this.client.get('v1/configmaps', namespace, rootCaConfigMap);
    if (!cur) {
      try {
        this.client.create(def, namespace, {
          apiVersion: 'v1', kind: 'ConfigMap',
          metadata: { name: rootCaConfigMap, namespace, annotations: { [descriptionKey]: description } },
          data: { 'ca.crt': pem },
        });
      } catch (e) {
        // Created meanwhile (its watch event brings the namespace back), or the namespace began terminating.
        if (e instanceof ApiError && (e.code === 409 || e.code === 403)) return;
        throw e;
      }
      return;
    }
    if (upToDate(cur, pem)) return;
    this.client.guaranteedUpdate(def, namespace, rootCaConfigMap, (o) => {
      o.data = { 'ca.crt': pem };
      o.metadata.annotations = { ...o.metadata.annotations, [descriptionKey]: description };
      return o;
    });
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}

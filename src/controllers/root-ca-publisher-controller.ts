// root-ca-certificate-publisher (kube-controller-manager's root-ca-cert-publisher): every active namespace holds
// ConfigMap kube-root-ca.crt with the cluster CA's certificate (`ca.crt`) and upstream's description annotation;
// one deleted is created again and one changed is set back (other annotations and labels are left as they are).
// The CA is the cluster's own (the one that signs the serving certificate with --tls, CSRs and client
// certificates; created on first use). Served over plain HTTP, Bonsai presents no certificate for it to verify,
// but it is still the CA that signs the cluster's certificates, so it is published all the same.
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import { keyFor, splitKey } from '../machinery/object-key.js';
import { defineController } from './runtime/index.js';

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

/** Keys are namespaces (`/<name>`); the CA's certificate is read once per start. */
export const rootCaPublisherController = defineController({
  name: 'root-ca-certificate-publisher',
  for: { resource: 'v1/namespaces', when: (c) => c.type !== 'DELETED' },
  watches: [{ resource: 'v1/configmaps', when: (c) => c.object.metadata.name === rootCaConfigMap, map: (c) => [keyFor('', c.object.metadata.namespace)] }],
  setup({ client }) {
    let pem: Promise<string> | undefined;
    const caPem = () => (pem ??= client.services.security().pki.ca().then((ca) => ca.certPem));
    return { reconcile: async (key: string) => publish(client, splitKey(key).name, await caPem()) };
  },
});

async function publish(client: Client, namespace: string, pem: string): Promise<void> {
  const ns = client.get('v1/namespaces', '', namespace);
  // As upstream: only active namespaces (a terminating one refuses new objects anyway).
  if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') return;
  const cur = client.get('v1/configmaps', namespace, rootCaConfigMap);
  if (!cur) {
    try {
      await client.create('v1/configmaps', namespace, {
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
  await client.guaranteedUpdate('v1/configmaps', namespace, rootCaConfigMap, (o) => {
    o.data = { 'ca.crt': pem };
    o.metadata.annotations = { ...o.metadata.annotations, [descriptionKey]: description };
    return o;
  });
}

// serviceaccount-token: Secrets of type kubernetes.io/service-account-token that name a ServiceAccount
// (`kubernetes.io/service-account.name`) get a legacy token (no expiry) in `data.token`, the cluster CA in
// `data.ca.crt` and their namespace, and the ServiceAccount's uid annotation. A token Secret whose ServiceAccount
// is gone (or was recreated with another uid) is deleted, as kube-controller-manager's tokens controller does.
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { defineController } from './runtime/index.js';
import { legacyClaims, signToken } from '../auth/serviceaccount/claims.js';
import { keyOf, splitKey } from '../machinery/object-key.js';

const tokenType = 'kubernetes.io/service-account-token';
const nameKey = 'kubernetes.io/service-account.name';
const uidKey = 'kubernetes.io/service-account.uid';

const data = (s: KObject) => (s.data ?? {}) as Record<string, string>;
const b64 = (v: string) => Buffer.from(v).toString('base64');

const isToken = (s: KObject) => s.type === tokenType;

export const serviceAccountTokenController = defineController({
  name: 'serviceaccount-token',
  for: { resource: 'v1/secrets', when: (c) => c.type !== 'DELETED' && isToken(c.object) },
  // A ServiceAccount that appears, changes or goes: its token Secrets are looked at again.
  watches: [{
    resource: 'v1/serviceaccounts',
    map: (c, { client }) => client.list('v1/secrets', c.object.metadata.namespace)
      .filter((s) => isToken(s) && s.metadata.annotations?.[nameKey] === c.object.metadata.name).map(keyOf),
  }],
  setup: ({ client }) => new TokenReconciler(client),
});

class TokenReconciler {
  constructor(private readonly client: Client) {}

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const secret = this.client.get('v1/secrets', namespace, name);
    if (!secret || secret.type !== tokenType || secret.metadata.deletionTimestamp) return;
    const saName = secret.metadata.annotations?.[nameKey] ?? '';
    const saUid = secret.metadata.annotations?.[uidKey] ?? '';
    const sa = this.client.get('v1/serviceaccounts', namespace, saName);
    const secrets = this.client.resource('v1/secrets')!;
    if (!sa || (saUid && saUid !== sa.metadata.uid)) {
      try {
        await this.client.delete(secrets, namespace, name, { preconditions: { uid: secret.metadata.uid } });
      } catch {
        /* gone already */
      }
      return;
    }
    const security = this.client.services.security();
    const ca = (await security.pki.ca()).certPem;
    const d = data(secret);
    const needsToken = !d.token;
    if (!needsToken && d['ca.crt'] === b64(ca) && d.namespace && saUid) return;
    const token = needsToken ? await signToken(security.serviceAccountKeys, legacyClaims(namespace, { name: sa.metadata.name ?? '', uid: sa.metadata.uid ?? '' }, name)) : undefined;
    try {
      await this.client.guaranteedUpdate(secrets, namespace, name, (cur) => {
        if (cur.metadata.uid !== secret.metadata.uid) return cur;
        const next = { ...data(cur) };
        next['ca.crt'] = b64(ca);
        next.namespace ||= b64(namespace);
        if (!next.token && token) next.token = b64(token);
        cur.data = next;
        cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [nameKey]: sa.metadata.name ?? '', [uidKey]: sa.metadata.uid ?? '' };
        return cur;
      });
    } catch {
      /* deleted meanwhile */
    }
  }
}

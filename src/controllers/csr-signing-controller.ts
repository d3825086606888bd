// certificatesigningrequest-signing (once called csrsigning): approved CertificateSigningRequests for the
// kubernetes.io signers are issued a certificate from the cluster CA (status.certificate); a request that breaks
// its signer's rules gets a Failed condition (SignerValidationFailure) instead. Denied, failed, already issued and other signers' requests are left alone.
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import { rfc3339 } from '../util/clock.js';
import { splitKey } from '../machinery/object-key.js';
import { defineController } from './runtime/index.js';
import { loadX509 } from '../auth/pki/x509-lib.js';
import { parseCsr } from '../auth/pki/csr.js';
import { signerCheck, signRequest } from '../auth/pki/csr-signing.js';

const key = 'certificates.k8s.io/v1/certificatesigningrequests';

interface CsrShape {
  spec?: { request?: string; signerName?: string; usages?: unknown[]; expirationSeconds?: number };
  status?: { certificate?: string; conditions?: Array<{ type?: string; status?: string }> };
}

const hasTrue = (csr: CsrShape, type: string) => (csr.status?.conditions ?? []).some((c) => c?.type === type && c.status === 'True');

export const csrSigningController = defineController({
  name: 'certificatesigningrequest-signing',
  for: { resource: key, when: (c) => c.type !== 'DELETED' },
  reconcile: (k, { client, clock }) => sign(client, clock, splitKey(k).name),
});

/** The request when it is approved and neither denied, failed nor issued yet. */
function pending(obj: KObject | undefined): CsrShape | undefined {
  const csr = obj as CsrShape | undefined;
  if (!csr || !hasTrue(csr, 'Approved') || hasTrue(csr, 'Denied') || hasTrue(csr, 'Failed') || csr.status?.certificate) return undefined;
  return csr;
}

async function sign(client: Client, clock: Clock, name: string): Promise<void> {
  const csr = pending(client.get(key, '', name));
  if (!csr) return;
  const signerName = csr.spec?.signerName ?? '';
  if (!signerName.startsWith('kubernetes.io/')) return;
  await loadX509();
  const parsed = parseCsr(Buffer.from(csr.spec?.request ?? '', 'base64'));
  const usages = (csr.spec?.usages ?? []).map(String);
  const problem = signerCheck(signerName, parsed, usages);
  if (problem === undefined) return;
  const def = client.resource('certificates.k8s.io/v1/certificatesigningrequests')!;
  if (problem) {
    const now = rfc3339(clock.now());
    await client.guaranteedUpdate(def, '', name, (cur) => {
      if (!pending(cur)) return cur;
      const status = (cur.status ??= {}) as { conditions?: unknown[] };
      status.conditions = [...(status.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: now, lastTransitionTime: now }];
      return cur;
    }, { subresource: 'status' });
    return;
  }
  const ca = await client.services.security().pki.ca();
  const pem = await signRequest(ca, parsed, usages, csr.spec?.expirationSeconds);
  await client.guaranteedUpdate(def, '', name, (cur) => {
    if (!pending(cur)) return cur;
    cur.status = { ...(cur.status as Record<string, unknown> | undefined), certificate: Buffer.from(pem).toString('base64') };
    return cur;
  }, { subresource: 'status' });
}


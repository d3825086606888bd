// What kube-controller-manager's csrsigning controller does with an approved request: check it against the
// signer's rules, then issue a certificate from the cluster CA with the requested usages for the requested
// duration (at most a year, at least 10 minutes), backdated five minutes, truncated to the CA's own expiry.
import type { ClusterCa } from './cluster-ca.js';
import { subjectOids, type ParsedCsr } from './csr.js';
import { loadX509 } from './x509-lib.js';

export const signers = {
  client: 'kubernetes.io/kube-apiserver-client',
  kubeletClient: 'kubernetes.io/kube-apiserver-client-kubelet',
  kubeletServing: 'kubernetes.io/kubelet-serving',
  legacyUnknown: 'kubernetes.io/legacy-unknown',
} as const;

const keyUsageBits: Record<string, number> = {
  signing: 1, 'digital signature': 1, 'content commitment': 2, 'key encipherment': 4, 'data encipherment': 8, 'key agreement': 16,
  'cert sign': 32, 'crl sign': 64, 'encipher only': 128, 'decipher only': 256,
};
/** Extended usages in Go's x509.ExtKeyUsage order (the issued extension lists them sorted so). */
const extKeyUsageOids: Array<[string[], string]> = [
  [['any'], '2.5.29.37.0'], [['server auth'], '1.3.6.1.5.5.7.3.1'], [['client auth'], '1.3.6.1.5.5.7.3.2'], [['code signing'], '1.3.6.1.5.5.7.3.3'],
  [['email protection', 's/mime'], '1.3.6.1.5.5.7.3.4'], [['ipsec end system'], '1.3.6.1.5.5.7.3.5'], [['ipsec tunnel'], '1.3.6.1.5.5.7.3.6'],
  [['ipsec user'], '1.3.6.1.5.5.7.3.7'], [['timestamping'], '1.3.6.1.5.5.7.3.8'], [['ocsp signing'], '1.3.6.1.5.5.7.3.9'],
  [['microsoft sgc'], '1.3.6.1.4.1.311.10.3.3'], [['netscape sgc'], '2.16.840.1.113730.4.1'],
];
/** Every usage name a CertificateSigningRequest may ask for: the key usages and the extended ones. */
export const knownUsages: ReadonlySet<string> = new Set([...Object.keys(keyUsageBits), ...extKeyUsageOids.flatMap(([names]) => names)]);

const sameSet = (a: string[], b: string[]) => new Set(a).size === new Set(b).size && a.every((x) => b.includes(x));

function kubeletSubject(csr: ParsedCsr): string | undefined {
  if (csr.organizations.length !== 1 || csr.organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  return undefined;
}

/**
 * Whether `signerName` is one this signer issues for (undefined: not ours, leave it alone) and, if so, the
 * reason the request breaks the signer's rules ('' when it is fine).
 */
export function signerCheck(signerName: string, csr: ParsedCsr, usages: string[]): string | undefined {
  switch (signerName) {
    case signers.client: {
      for (const u of usages) if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return `invalid usage for client certificate: ${u}`;
      return usages.includes('client auth') ? '' : 'missing required usage for client certificate: client auth';
    }
    case signers.kubeletClient: {
      const bad = kubeletSubject(csr);
      if (bad) return bad;
      if (csr.dnsNames.length) return 'DNS subjectAltNames are not allowed';
      if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
      if (csr.ipAddresses.length) return 'IP subjectAltNames are not allowed';
      if (csr.uris.length) return 'URI subjectAltNames are not allowed';
      if (!csr.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
      if (!sameSet(usages, ['digital signature', 'key encipherment', 'client auth']) && !sameSet(usages, ['digital signature', 'client auth'])) {
        return 'usages did not match [client auth digital signature key encipherment]';
      }
      return '';
    }
    case signers.kubeletServing: {
      const bad = kubeletSubject(csr);
      if (bad) return bad;
      if (csr.dnsNames.length === 0 && csr.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
      if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
      if (csr.uris.length) return 'URI subjectAltNames are not allowed';
      if (!csr.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
      if (!sameSet(usages, ['digital signature', 'key encipherment', 'server auth']) && !sameSet(usages, ['digital signature', 'server auth'])) {
        return 'usages did not match [digital signature key encipherment server auth]';
      }
      return '';
    }
    case signers.legacyUnknown:
      return '';
    default:
      return undefined;
  }
}

const maxTtlSeconds = 365 * 24 * 3600;
const minTtlSeconds = 600;
const backdateMs = 5 * 60_000;
const shortMs = 8 * 3600_000;

/** The certificate's lifetime in seconds: the requested one within [10 minutes, a year]; a year when unset. */
export function certificateSeconds(expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return maxTtlSeconds;
  return Math.min(maxTtlSeconds, Math.max(minTtlSeconds, expirationSeconds));
}

/** Signs `csr` with the cluster CA; returns the certificate PEM. Throws on unrecognised usages. */
export async function signRequest(ca: ClusterCa, csr: ParsedCsr, usages: string[], expirationSeconds: number | undefined, now = Date.now()): Promise<string> {
  const x509 = await loadX509();
  let keyUsage = 0;
  const unknown: string[] = [];
  for (const u of usages) {
    if (keyUsageBits[u] !== undefined) keyUsage |= keyUsageBits[u];
    else if (!extKeyUsageOids.some(([names]) => names.includes(u))) unknown.push(u);
  }
  if (unknown.length) throw new Error(`unrecognized usage values: [${unknown.map((u) => JSON.stringify(u)).join(' ')}]`);
  const extKeyUsages = extKeyUsageOids.filter(([names]) => names.some((n) => usages.includes(n))).map(([, oid]) => oid);
  // The subject as Go re-encodes a parsed one: known attributes only, in pkix.Name's order.
  const name = csr.request.subjectName;
  const order = [subjectOids.country, subjectOids.province, subjectOids.locality, subjectOids.street, subjectOids.postalCode, subjectOids.organization, subjectOids.organizationalUnit];
  const subject: Array<Record<string, string[]>> = [];
  for (const oid of order) {
    const values = name.getField(oid);
    if (values.length) subject.push({ [oid]: values });
  }
  if (csr.commonName) subject.push({ [subjectOids.commonName]: [csr.commonName] });
  const serial = name.getField(subjectOids.serialNumber).at(-1);
  if (serial) subject.push({ [subjectOids.serialNumber]: [serial] });
  const ttlMs = certificateSeconds(expirationSeconds) * 1000;
  const names = [
    ...csr.dnsNames.map((value) => ({ type: 'dns' as const, value })), ...csr.emailAddresses.map((value) => ({ type: 'email' as const, value })),
    ...csr.ipAddresses.map((value) => ({ type: 'ip' as const, value })), ...csr.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  return ca.issue({
    subject, publicKey: csr.request.publicKey, keyUsage, extKeyUsages,
    notBefore: new Date(now - backdateMs), notAfter: new Date(now + ttlMs - (ttlMs < shortMs ? 0 : backdateMs)),
    subjectAltName: names.length ? new x509.SubjectAlternativeNameExtension(names, subject.length === 0) : undefined,
  });
}

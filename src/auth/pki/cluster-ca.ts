// The cluster CA: a self-signed ECDSA P-256 authority that issues the serving certificate, the admin's client
// certificate and the certificates approved CertificateSigningRequests ask for. Everything here loads
// @peculiar/x509 on first use.
import { createPrivateKey, KeyObject, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import type { Extension, Name, PublicKey } from '@peculiar/x509';
import { runWorkerTask } from '../../util/worker-task.js';
import { loadX509 } from './x509-lib.js';

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const day = 86_400_000;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** A positive serial of 16 random bytes (Go refuses negative serials; the first byte keeps the sign bit clear). */
function serialNumber(): string {
  const b = randomBytes(16);
  b[0] = (b[0] & 0x7f) | 0x01;
  return b.toString('hex');
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']));
}

function pkcs8Pem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

async function importSigningKey(keyPem: string): Promise<CryptoKey> {
  const der = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'der' });
  return (await webcrypto.subtle.importKey('pkcs8', der, ecdsa, false, ['sign']));
}

/** `generateCa` in a worker thread (inline when a worker cannot start): the main thread never loads @peculiar/x509 for it. */
export function generateCaOffThread(commonName = 'bonsai-ca'): Promise<KeyPairPem> {
  return runWorkerTask('auth/pki/ca-worker.js', { commonName }, () => generateCa(commonName));
}

/** Generates a new CA, valid ten years (as kubeadm's). */
export async function generateCa(commonName = 'bonsai-ca'): Promise<KeyPairPem> {
  const x509 = await loadX509();
  const keys = await newKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(), name: [{ CN: [commonName] }], keys, signingAlgorithm: ecdsa,
    notBefore: new Date(now - 5 * 60_000), notAfter: new Date(now + 3650 * day),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: pkcs8Pem(keys.privateKey) };
}

export interface IssueOptions {
  subject: Name | Array<Record<string, string[]>>;
  publicKey: PublicKey | CryptoKey;
  notBefore: Date;
  notAfter: Date;
  /** KeyUsage bits (x509.KeyUsageFlags); 0 leaves the extension out. */
  keyUsage: number;
  extKeyUsages: string[];
  /** A subjectAltName extension to carry over. */
  subjectAltName?: Extension;
}

export class ClusterCa {
  private signingKey?: Promise<CryptoKey>;
  readonly cert: NodeX509;

  constructor(readonly certPem: string, private readonly keyPem: string) {
    this.cert = new NodeX509(certPem);
  }

  /** Signs a certificate for `opts.publicKey` (never a CA), truncated to the CA's own expiry. */
  async issue(opts: IssueOptions): Promise<string> {
    const x509 = await loadX509();
    this.signingKey ??= importSigningKey(this.keyPem);
    const ca = new x509.X509Certificate(this.certPem);
    const caNotAfter = new Date(this.cert.validTo);
    const extensions: Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
    if (opts.keyUsage) extensions.push(new x509.KeyUsagesExtension(opts.keyUsage, true));
    if (opts.extKeyUsages.length) extensions.push(new x509.ExtendedKeyUsageExtension(opts.extKeyUsages));
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey));
    if (opts.subjectAltName) extensions.push(opts.subjectAltName);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(), subject: opts.subject, issuer: ca.subjectName, publicKey: opts.publicKey,
      signingKey: await this.signingKey, signingAlgorithm: ecdsa,
      notBefore: opts.notBefore, notAfter: opts.notAfter < caNotAfter ? opts.notAfter : caNotAfter, extensions,
    });
    return cert.toString('pem');
  }

  /** A new key and a certificate for it: serving (server auth, with SANs) or client (client auth). */
  async issueKeyPair(kind: 'server' | 'client', subject: Array<Record<string, string[]>>, days: number, sans: { dns: string[]; ips: string[] } = { dns: [], ips: [] }): Promise<KeyPairPem> {
    const x509 = await loadX509();
    const keys = await newKeys();
    const now = Date.now();
    const names = [...sans.dns.map((value) => ({ type: 'dns' as const, value })), ...sans.ips.map((value) => ({ type: 'ip' as const, value }))];
    const certPem = await this.issue({
      subject, publicKey: keys.publicKey, notBefore: new Date(now - 5 * 60_000), notAfter: new Date(now + days * day),
      keyUsage: x509.KeyUsageFlags.digitalSignature, extKeyUsages: [kind === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
      subjectAltName: names.length ? new x509.SubjectAlternativeNameExtension(names) : undefined,
    });
    return { certPem, keyPem: pkcs8Pem(keys.privateKey) };
  }
}

/** True when `certPem` parses, was issued by `ca` and is valid for at least `minDays` more days. */
export function issuedBy(certPem: string | undefined, ca: ClusterCa, minDays: number): NodeX509 | undefined {
  if (!certPem) return undefined;
  try {
    const cert = new NodeX509(certPem);
    if (!cert.checkIssued(ca.cert) || !cert.verify(ca.cert.publicKey)) return undefined;
    if (Date.parse(cert.validTo) < Date.now() + minDays * day) return undefined;
    return cert;
  } catch {
    return undefined;
  }
}

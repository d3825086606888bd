// The ServiceAccount token signing key: RSA 2048 (RS256, as kube-apiserver's default), generated once into the key
// store as `sa.key` on the first token that needs it. Verification reads the same file and needs no library.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { KeyStore } from '../pki/key-store.js';

export const signingAlgorithm = 'RS256';

export interface VerificationKey {
  key: KeyObject;
  kid: string;
}

/** Upstream's key id: the unpadded base64url SHA-256 of the DER public key. */
function keyId(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('base64url');
}

export class ServiceAccountKeys {
  private verification?: VerificationKey;
  private signing?: Promise<{ key: CryptoKey; kid: string }>;

  constructor(private readonly store: KeyStore) {}

  /** The public key, if a signing key exists (nothing is generated: without a key no token can be valid). */
  verificationKey(): VerificationKey | undefined {
    if (this.verification) return this.verification;
    const pem = this.store.read('sa.key');
    if (!pem) return undefined;
    const key = createPublicKey(pem);
    this.verification = { key, kid: keyId(key) };
    return this.verification;
  }

  /** The private key, generated and stored on first use. */
  signingKey(): Promise<{ key: CryptoKey; kid: string }> {
    this.signing ??= (async () => {
      const jose = await import('jose');
      let pem = this.store.read('sa.key');
      if (!pem) {
        const pair = await jose.generateKeyPair(signingAlgorithm, { modulusLength: 2048, extractable: true });
        pem = await jose.exportPKCS8(pair.privateKey);
        this.store.write('sa.key', pem);
      }
      const key = await jose.importPKCS8(pem, signingAlgorithm);
      return { key, kid: this.verificationKey()!.kid };
    })();
    this.signing.catch(() => (this.signing = undefined));
    return this.signing;
  }
}

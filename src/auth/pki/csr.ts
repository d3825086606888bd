// PKCS#10 certificate signing requests: the PEM block, the request parsed with @peculiar/x509 (which must have been
// loaded: see loadX509) and its self-signature checked with node's crypto, synchronously, so validation can run in
// the registry's write pipeline. Errors read as Go's (certificates.ParseCSR, CheckSignature).
import { createPublicKey, verify } from 'node:crypto';
import type { Pkcs10CertificateRequest } from '@peculiar/x509';
import { loadedX509 } from './x509-lib.js';

export const subjectOids = {
  country: '2.5.4.6', province: '2.5.4.8', locality: '2.5.4.7', street: '2.5.4.9', postalCode: '2.5.4.17',
  organization: '2.5.4.10', organizationalUnit: '2.5.4.11', commonName: '2.5.4.3', serialNumber: '2.5.4.5',
} as const;

export interface ParsedCsr {
  request: Pkcs10CertificateRequest;
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

/** The first PEM block of `text` (Go's pem.Decode: leading text is skipped). */
export function decodePem(text: string): { type: string; der: Buffer; rest: string } | undefined {
  let from = 0;
  // A begin line without its end is skipped, as Go does; a few tries bound the work on hostile input.
  for (let attempt = 0; attempt < 16; attempt++) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin < 0) return undefined;
    const typeEnd = text.indexOf('-----', begin + 11);
    const lineEnd = text.indexOf('\n', begin);
    from = begin + 11;
    if (typeEnd < 0 || lineEnd < 0 || typeEnd > lineEnd) continue;
    const type = text.slice(begin + 11, typeEnd);
    const endMarker = `-----END ${type}-----`;
    const end = text.indexOf(endMarker, lineEnd);
    if (end < 0) continue;
    const body = text.slice(lineEnd + 1, end).split(/\r?\n/).filter((l) => !l.includes(':')).join('');
    if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) continue;
    return { type, der: Buffer.from(body, 'base64'), rest: text.slice(end + endMarker.length) };
  }
  return undefined;
}

const hashOf = (alg: { hash?: unknown }): string | undefined => {
  const h = alg.hash;
  const name = typeof h === 'string' ? h : typeof h === 'object' && h && 'name' in h ? String((h as { name: unknown }).name) : undefined;
  return name ? name.replace('-', '').toLowerCase() : undefined;
};

function checkSignature(csr: Pkcs10CertificateRequest): void {
  const alg = csr.signatureAlgorithm as unknown as { name?: string; hash?: unknown };
  const tbs = Buffer.from((csr as unknown as { tbs: ArrayBuffer }).tbs);
  const signature = Buffer.from(csr.signature);
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  } catch {
    throw new Error('x509: unsupported public key type');
  }
  let ok: boolean;
  switch (alg.name) {
    case 'RSASSA-PKCS1-v1_5':
      if (key.asymmetricKeyType !== 'rsa') throw new Error('x509: signature algorithm specifies an RSA public key, but have public key of type ' + String(key.asymmetricKeyType));
      ok = verify(hashOf(alg) ?? 'sha256', tbs, key, signature);
      if (!ok) throw new Error('crypto/rsa: verification error');
      return;
    case 'ECDSA':
      if (key.asymmetricKeyType !== 'ec') throw new Error('x509: signature algorithm specifies an ECDSA public key, but have public key of type ' + String(key.asymmetricKeyType));
      ok = verify(hashOf(alg) ?? 'sha256', tbs, key, signature);
      if (!ok) throw new Error('x509: ECDSA verification failure');
      return;
    case 'Ed25519':
      ok = key.asymmetricKeyType === 'ed25519' && verify(null, tbs, key, signature);
      if (!ok) throw new Error('x509: Ed25519 verification failure');
      return;
    default:
      throw new Error('x509: cannot verify signature: algorithm unimplemented');
  }
}

/** Parses and verifies a PEM-encoded CSR; throws an Error with Go's wording when it is not one. */
export function parseCsr(pem: Buffer): ParsedCsr {
  const x509 = loadedX509();
  if (!x509) throw new Error('x509: the certificate library is not loaded');
  const block = decodePem(pem.toString('latin1'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let request: Pkcs10CertificateRequest;
  let subject: { getField(oid: string): string[] };
  try {
    request = new x509.Pkcs10CertificateRequest(new Uint8Array(block.der));
    subject = request.subjectName;
    void request.publicKey.rawData;
  } catch {
    throw new Error('asn1: structure error: malformed certificate request');
  }
  checkSignature(request);
  const out: ParsedCsr = {
    request, commonName: subject.getField(subjectOids.commonName).at(-1) ?? '', organizations: subject.getField(subjectOids.organization),
    dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [],
  };
  try {
    for (const ext of request.extensions) {
      if (!(ext instanceof x509.SubjectAlternativeNameExtension)) continue;
      for (const n of ext.names.items) {
        if (n.type === 'dns') out.dnsNames.push(n.value);
        else if (n.type === 'ip') out.ipAddresses.push(n.value);
        else if (n.type === 'email') out.emailAddresses.push(n.value);
        else if (n.type === 'url') out.uris.push(n.value);
      }
    }
  } catch {
    throw new Error('x509: malformed extension in certificate request');
  }
  return out;
}

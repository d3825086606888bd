// Compact JWS reading for ServiceAccount tokens: strict base64url parts, JSON objects, and a synchronous signature
// check with node's crypto (the same key jose signed with). Anything malformed is simply not a token of ours.
import { verify, type KeyObject } from 'node:crypto';
import { isRecord } from '../../machinery/types.js';

export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

const base64url = /^[A-Za-z0-9_-]*$/;

function decodeJson(part: string): Record<string, unknown> | undefined {
  if (!base64url.test(part)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !base64url.test(parts[2])) return undefined;
  const header = decodeJson(parts[0]);
  const payload = header && decodeJson(parts[1]);
  if (!header || !payload) return undefined;
  return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url') };
}

/** Asymmetric algorithms a ServiceAccount token may name (upstream's parser refuses `none` and HMAC). */
export const acceptedAlgorithms = new Set(['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512']);

const digests: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

/** True when the signature is valid for `key` under the header's algorithm. */
export function verifySignature(jwt: DecodedJwt, key: KeyObject): boolean {
  const alg = String(jwt.header.alg);
  const digest = digests[alg];
  if (!digest) return false;
  const keyType = key.asymmetricKeyType;
  if (alg.startsWith('RS') && keyType !== 'rsa') return false;
  if (alg.startsWith('ES') && keyType !== 'ec') return false;
  try {
    const data = Buffer.from(jwt.signingInput);
    return alg.startsWith('ES') ? verify(digest, data, { key, dsaEncoding: 'ieee-p1363' }, jwt.signature) : verify(digest, data, key, jwt.signature);
  } catch {
    return false;
  }
}

/** A NumericDate claim in seconds, undefined when absent; NaN when present but not a number. */
export function numericDate(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : NaN;
}

/** The `aud` claim as a list (a single string is one audience). */
export function audiencesOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v as string[];
  return undefined;
}

// Client certificates over TLS: a certificate the cluster CA verified (TLS asks for one and checks it against the
// CA, client-auth usage included) authenticates as its subject: the common name is the user, the organizations
// its groups, the LDAP UID attribute its uid, and its SHA-256 fingerprint the credential id. A certificate that
// fails verification is an invalid credential (401), none at all is no credential.
import { createHash } from 'node:crypto';
import { TLSSocket, type PeerCertificate } from 'node:tls';
import { credentialIdKey, type UserInfo } from '../types.js';
import type { Outcome } from './outcome.js';

const cache = new WeakMap<TLSSocket, Outcome>();

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function identifier(peer: PeerCertificate): string {
  return `SN=${BigInt(`0x${peer.serialNumber || '0'}`).toString()}`;
}

function fromPeer(socket: TLSSocket): Outcome {
  const peer = socket.getPeerCertificate();
  if (!peer || !peer.raw) return undefined;
  if (!socket.authorized) {
    return { error: `verifying certificate ${identifier(peer)} failed: x509: ${String(socket.authorizationError ?? 'certificate signed by unknown authority')}` };
  }
  const subject = (peer.subject ?? {});
  const cn = values(subject.CN);
  const username = cn[cn.length - 1];
  if (!username) return undefined;
  const uids = values(subject.UID);
  if (uids.length > 1) return { error: `expected 1 UID, but found multiple: ${uids.join(', ')}` };
  const user: UserInfo = {
    username, groups: values(subject.O),
    extra: { [credentialIdKey]: [`X509SHA256=${createHash('sha256').update(peer.raw).digest('hex')}`] },
  };
  if (uids[0]) user.uid = uids[0];
  return { user };
}

/** The user of the connection's verified client certificate (computed once per connection). */
export function authenticateClientCertificate(socket: unknown): Outcome {
  if (!(socket instanceof TLSSocket)) return undefined;
  if (!cache.has(socket)) cache.set(socket, fromPeer(socket));
  const o = cache.get(socket);
  return o && 'user' in o ? { user: { ...o.user, groups: [...o.user.groups] } } : o;
}

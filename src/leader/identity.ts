// A leader election candidate's identity, as upstream's components make it: `<hostname>_<uuid>`.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

export function leaderIdentity(host: string = hostname()): string {
  return `${host}_${randomUUID()}`;
}

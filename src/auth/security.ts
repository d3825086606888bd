// The cluster's security material and authenticators, made once per server: the key store (`<data>/pki`, or
// memory), the CA (created on first need), the ServiceAccount signing key, the admin token and the request
// authenticator. Components that only hold a Registry (resource strategies, controllers, handlers) find it with
// `securityOf(reg)`; a registry nobody configured gets in-memory defaults.
import { randomBytes } from 'node:crypto';
import type { StrategyRegistry } from '../registry/resource.js';
import type { KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import { promised } from '../util/steps.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';
import { keyStoreFor, MemoryKeyStore, type KeyStore } from './pki/key-store.js';
import { Pki } from './pki/pki.js';
import { ServiceAccountKeys } from './serviceaccount/signing-key.js';
import { defaultIssuer } from './serviceaccount/claims.js';
import { Authenticator } from './authn/authenticator.js';
import { audienceAgnostic, tokenUnion } from './authn/outcome.js';
import { readTokenFile, staticTokens } from './authn/token-file.js';
import { serviceAccountJwt, type ObjectLookup } from './authn/service-account-jwt.js';
import { adminUser, groups, type UserInfo } from './types.js';

export interface SecurityOptions {
  /** Data directory, or ':memory:'. */
  data?: string;
  /** `--anonymous-auth` (default true). */
  anonymousAuth?: boolean;
  /** `--token-auth-file`: upstream's static token CSV. */
  tokenAuthFile?: string;
  /** The ServiceAccount token issuer, also the API audience. */
  issuer?: string;
}

const lastUsedLabel = 'kubernetes.io/legacy-token-last-used';

function registryLookup(reg: StrategyRegistry): ObjectLookup {
  return {
    get: (resource, namespace, name) => reg.getStored(`core/${resource}`, resource === 'nodes' ? '' : namespace, name),
    now: () => Math.floor(reg.clock.nowMs() / 1000),
    markLegacyTokenUsed(secret: KObject) {
      const now = reg.clock.now();
      const today = rfc3339(now).slice(0, 10);
      const tomorrow = rfc3339(new Date(now.getTime() + 86_400_000)).slice(0, 10);
      const last = secret.metadata.labels?.[lastUsedLabel];
      if (last === today || last === tomorrow) return;
      const def = reg.find('', 'v1', 'secrets');
      if (!def) return;
      promised(() => reg.update(def, secret.metadata.namespace ?? '', secret.metadata.name ?? '', (cur) => {
        cur.metadata.labels = { ...(cur.metadata.labels ?? {}), [lastUsedLabel]: today };
        return cur;
      }, { webhooks: false })).catch(() => {
        /* deleted meanwhile: the next use finds out */
      });
    },
  };
}

export class Security {
  readonly pki: Pki;
  readonly serviceAccountKeys: ServiceAccountKeys;
  readonly issuer: string;
  readonly apiAudiences: string[];
  readonly adminToken: string;
  readonly authenticator: Authenticator;

  constructor(reg: StrategyRegistry, opts: SecurityOptions = {}, store: KeyStore = keyStoreFor(opts.data ?? ':memory:')) {
    this.pki = new Pki(store);
    this.serviceAccountKeys = new ServiceAccountKeys(store);
    this.issuer = opts.issuer ?? defaultIssuer;
    this.apiAudiences = [this.issuer];
    let token = store.read('admin-token')?.trim();
    if (!token) {
      token = randomBytes(32).toString('base64url');
      store.write('admin-token', `${token}\n`);
    }
    this.adminToken = token;
    const fileUsers = opts.tokenAuthFile ? readTokenFile(opts.tokenAuthFile) : new Map<string, UserInfo>();
    const tokens = tokenUnion([
      audienceAgnostic(this.apiAudiences, staticTokens(fileUsers)),
      serviceAccountJwt({ keys: this.serviceAccountKeys, issuer: this.issuer, apiAudiences: this.apiAudiences, lookup: registryLookup(reg) }),
      audienceAgnostic(this.apiAudiences, staticTokens(new Map([[token, { username: adminUser.username, groups: [groups.masters] }]]))),
    ]);
    this.authenticator = new Authenticator({ tokens, apiAudiences: this.apiAudiences, anonymous: opts.anonymousAuth ?? true });
  }
}

/** The server's security: set at start-up (`attachSecurity`), else made with in-memory defaults on first use. */
const securitySlot = new ServerSlot<{ security?: Security }>('security', () => ({}));

/** Makes `security` the one every view of `reg`'s server finds. */
export function attachSecurity(reg: ServerStateHolder, security: Security): void {
  reg.state(securitySlot).security = security;
}

/** The security of the server `reg` belongs to (in-memory defaults for a registry built without one). */
export function securityOf(reg: StrategyRegistry): Security {
  const held = reg.state(securitySlot);
  return (held.security ??= new Security(reg.root(), {}, new MemoryKeyStore()));
}

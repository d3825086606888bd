// What the registry's read and write pipelines (read.ts, write.ts, delete.ts, update-tracking.ts) use of the
// Registry, declared below it: registry.ts runs those pipelines and its class satisfies this interface, so the
// pipelines need not import registry.ts.
import type { UserInfo } from '../auth/types.js';
import type { Authorization } from '../auth/authorization.js';
import type { AdmissionPlugin, AdmissionServer } from '../admission/types.js';
import type { ResourceDef, StrategyContext, StrategyRegistry } from './resource.js';

export interface RegistryCore extends StrategyRegistry, AdmissionServer {
  /** The server's authorization: read by admission (CEL's authorizer), kept by the root registry. */
  authorization: Authorization | undefined;
  /** The user this registry view acts for; undefined on the root registry. */
  readonly actor: UserInfo | undefined;
  /** Admission plugins in the order they run. */
  readonly admission: readonly AdmissionPlugin[];
  ctx(dryRun?: boolean): StrategyContext;
  /** Translates the fixed list of storage errors into API errors for this resource. */
  translate(err: unknown, def: ResourceDef, name: string): unknown;
}

// The declaration every served resource makes once: names, scope, discovery data, subresources, strategy hooks.
import type { FieldGetter } from '../machinery/fields.js';
import type { KObject } from '../machinery/types.js';
import type { FieldError } from '../machinery/errors.js';
import type { Clock } from '../util/clock.js';
import type { ServerStateHolder } from '../util/server-slot.js';
import type { UserInfo } from '../auth/types.js';
import type { ComponentInfo } from '../auth/identities.js';
import type { AuthorizationHolder } from '../auth/authorization.js';
import type { TablePrinter } from './tables/helpers.js';
import type { NameFn } from '../machinery/names.js';

export type Subresource = 'status' | 'scale' | 'log' | 'binding' | 'eviction' | 'finalize' | 'exec' | 'attach' | 'portforward' | 'proxy' | 'ephemeralcontainers' | 'resize' | 'token' | 'approval';

/** Subresources that write one part of their object (see ResourceDef.partialWrites). */
export type PartialWrite = 'resize' | 'ephemeralcontainers' | 'approval' | 'binding' | 'finalize';

/** What a partial write takes from the request, and the validation that replaces the object's own. */
export interface PartialWriteRule {
  merge: (current: KObject, request: KObject, now: Date) => KObject;
  validate: (obj: KObject, old: KObject) => FieldError[];
  /** The part is written as merged, without the kind's defaults (a namespace's finalize empties what defaults would refill). */
  undefaulted?: boolean;
}

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * What a kind's strategy hooks use of the registry (registry.ts's Registry, or a view of it, satisfies it): stored
 * objects (shared: never mutate them), the served resources, and the server's state, authorization and security
 * (a legacy token's last-used label is written with the server's own update).
 */
export interface StrategyRegistry extends ServerStateHolder, AuthorizationHolder {
  readonly defs: readonly ResourceDef[];
  find(group: string, version: string, plural: string): ResourceDef | undefined;
  getStored(key: string, namespace: string, name: string): KObject | undefined;
  listStored(key: string, namespace?: string): KObject[];
  /** An update that may wait (registry.ts); `webhooks: false` for the server's own. The object, or a promise of it. */
  update(def: ResourceDef, namespace: string, name: string, mutate: (current: KObject) => KObject, opts: { webhooks?: false }): KObject | Promise<KObject>;
  /** Set on views of trusted in-process components (controllers, scheduler, kubelets). */
  readonly component: ComponentInfo | undefined;
  readonly clock: Clock;
  root(): StrategyRegistry;
}

export interface StrategyContext {
  registry: StrategyRegistry;
  clock: Clock;
  dryRun: boolean;
  /** Who is writing, when known (the registry view's actor). */
  user?: UserInfo;
}

export interface ResourceDef {
  group: string;
  /** The storage version; objects are stored with this apiVersion. */
  version: string;
  /** Served versions, preferred first; defaults to [version]. */
  versions?: string[];
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: Subresource[];
  /** Verbs for discovery and enforcement; defaults to allVerbs. */
  verbs?: string[];
  /** metadata.generation is tracked (bumped on spec changes). */
  generation?: boolean;
  /** Status is kept from create input (e.g. nodes registering with status); otherwise reset on create when there is a status subresource. */
  keepStatusOnCreate?: boolean;
  /**
   * The status a kind always serialises, as upstream's Go encoding of its (non-pointer) status struct does: `{}`, or
   * the zero values of the fields without `omitempty` (ReplicaSet `{replicas: 0}`). Every write fills in what is missing.
   */
  emptyStatus?: Record<string, unknown>;
  /** A warning every request on the resource carries, as upstream warns about deprecated APIs (v1 Endpoints). */
  deprecationWarning?: string;
  /** DELETE answers with the object (upstream's ReturnDeletedObject: pods, services, ...); otherwise with a Success Status. */
  returnDeletedObject?: boolean;
  /** Default deletion propagation when the client sends none. */
  defaultPropagation?: 'Orphan' | 'Background';
  fieldSelectors?: Record<string, FieldGetter>;
  /** Strategic merge patches are refused with 415, as for custom resources (they have no patch strategies). */
  noStrategicMerge?: boolean;
  /**
   * What a read serves of a stored object before any conversion (custom resources: their schema's defaults, as
   * upstream applies them when it decodes from storage); must return the object itself when nothing changes.
   */
  onRead?: (obj: KObject) => KObject;
  /** Converts a stored object to a served version (apiVersion set by the caller). */
  toVersion?: (obj: KObject, version: string) => KObject;
  /**
   * A custom resource's conversion webhook (CRD conversion strategy Webhook): reads and writes in another version
   * than the storage one await it (src/apiextensions/conversion-webhook.ts); toVersion/fromVersion stay unset.
   */
  conversionWebhook?: { clientConfig: unknown; conversionReviewVersions: string[] };
  /** Converts a request body of a served version to the storage version. */
  fromVersion?: (obj: KObject, version: string) => KObject;
  /** Runs after defaults and system metadata on create, before validation. */
  prepareCreate?: (obj: KObject, ctx: StrategyContext) => void;
  /** Runs on update of the main resource, before validation. */
  prepareUpdate?: (obj: KObject, old: KObject, ctx: StrategyContext) => void;
  /** Runs on update of the status subresource, before validation (upstream's status strategy's PrepareForUpdate). */
  prepareStatusUpdate?: (obj: KObject, old: KObject, ctx: StrategyContext) => void;
  /**
   * The defaults kube-apiserver fills in when it decodes an object of the kind (in place, on the storage form);
   * `version` is the one the request was made in, when known (custom resources default with that version's schema).
   */
  defaults?: (obj: KObject, version?: string) => void;
  /** The kind's semantic validation (after the generic ObjectMeta rules); `old` is set on updates; `version` as above. */
  validate?: (obj: KObject, old: KObject | undefined, version?: string) => FieldError[];
  /**
   * The kind's rules for a write of the status subresource, in place of `validate` there (upstream's status
   * strategy's ValidateUpdate, where it checks less than the main resource's: the spec cannot change through it).
   */
  validateStatus?: (obj: KObject, old: KObject) => FieldError[];
  /**
   * For a kind whose validation can take long (a CRD's schemas): work `validate` will need, done first in turns of the
   * event loop of its own (the write waits for it), so no single turn holds the loop for the whole of it.
   */
  prevalidate?: (obj: KObject, old: KObject | undefined) => Promise<void> | undefined;
  /** The rule metadata.name (and generateName) must follow on create; the default is a DNS-1123 subdomain. */
  nameValidation?: NameFn;
  /** A limit on metadata.name shorter than the name rule's own (CronJob: 52, its Jobs' names get a suffix). */
  maxNameLength?: number;
  /** Server-side Table columns and cells (`kubectl get`); the default is Name and Created At. */
  table?: TablePrinter;
  /** A served version's own table, where versions differ (a CRD's additionalPrinterColumns); else `table`. */
  tableOf?: (version: string) => TablePrinter | undefined;
  /** Finalizers the registry adds when the object is deleted (CRDs: their instances are removed first). */
  deleteFinalizers?: string[];
  /**
   * How decoding checks a body of the kind: the unknown field paths (pruned from `obj` when `prune`) and type errors.
   * Built-in kinds are checked against the upstream OpenAPI documents; custom resources against their CRD's schema.
   */
  checkFields?: (obj: unknown, version: string, prune: boolean) => { unknownFields: string[]; typeErrors: string[] };
  /** The scale subresource of a kind whose replicas live at other paths than spec.replicas (custom resources). */
  scale?: { get: (obj: KObject) => KObject; set: (obj: KObject, replicas: number) => KObject };
  /** Called once the object is deleted from storage. */
  afterDelete?: (obj: KObject, ctx: StrategyContext) => void;
  /** Shares another resource's storage (events.k8s.io events are core/v1 events): its key and stored apiVersion. */
  sharedStorage?: { key: string; apiVersion: string };
  /**
   * Subresources other than status that write one part of the object (pods/resize, pods/ephemeralcontainers): what
   * the write takes from the request, and the validation that replaces the object's own.
   */
  partialWrites?: Partial<Record<PartialWrite, PartialWriteRule>>;
  /** Create-only virtual resources (e.g. SelfSubjectAccessReview): compute the response, store nothing. */
  virtualCreate?: (obj: KObject, ctx: StrategyContext) => KObject;
  /**
   * Loads what the kind's synchronous hooks need (a heavy library, e.g. X.509 parsing for CSRs) before a write is
   * handled; called by the API handlers and by in-process writers before they write the kind.
   */
  load?: () => Promise<unknown>;
  /** Read-only resources computed on demand by their own handler (metrics.k8s.io): listed in discovery, never stored. */
  computed?: boolean;
}

export function servedVersions(def: ResourceDef): string[] {
  return def.versions ?? [def.version];
}

export function storageKey(def: ResourceDef): string {
  return def.sharedStorage?.key ?? `${def.group || 'core'}/${def.plural}`;
}

export function storageApiVersion(def: ResourceDef): string {
  return def.sharedStorage?.apiVersion ?? (def.group ? `${def.group}/${def.version}` : def.version);
}

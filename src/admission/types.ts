// Admission, as upstream's admission.Interface: what a write asks for, and the plugins that may change or refuse it.
// The write pipeline runs every plugin's `mutate` in order (built-ins, then mutating policies and webhooks), then
// defaulting and schema validation, then every plugin's `validate` (built-ins, validating policies, webhooks).
import type { KObject, GroupVersionKind } from '../machinery/types.js';
import type { UserInfo } from '../auth/types.js';
import type { ResourceDef } from '../registry/resource.js';
import type { Authorization } from '../auth/authorization.js';

/**
 * The part of the registry admission plugins use: stored objects (read-only, shared: never mutate them), the served
 * resources, the server's authorization (CEL's authorizer) and how simulated webhook endpoints answer.
 */
export interface AdmissionServer {
  readonly defs: readonly ResourceDef[];
  findByKind(group: string, kind: string): ResourceDef | undefined;
  getStored(key: string, namespace: string, name: string): KObject | undefined;
  listStored(key: string, namespace?: string): KObject[];
  readonly authorization: Authorization | undefined;
  readonly simulatedWebhooks: 'allow' | 'fail';
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: ResourceDef;
  /** The resource as requested (group, version, plural) and the kind of `object` in that version. */
  resource: { group: string; version: string; resource: string };
  kind: GroupVersionKind;
  /** '' for the main resource. */
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  name: string;
  /** The object being written (in the storage version; mutating plugins change it in place or replace it). Undefined on DELETE. */
  object: KObject | undefined;
  /** The current object on UPDATE and DELETE. */
  oldObject: KObject | undefined;
  /** The CreateOptions/UpdateOptions/DeleteOptions of the request, as upstream's AdmissionRequest.options. */
  options?: Record<string, unknown>;
  user: UserInfo;
  dryRun: boolean;
  /** `Warning` header texts collected for the response. */
  warnings: string[];
  /** Audit annotations plugins add (key → value). */
  auditAnnotations?: Record<string, string>;
  /** What plugins read of the server the write goes through (namespaces, params, configurations, ...). */
  registry: AdmissionServer;
  /**
   * False for the server's own writes (`webhooks: false`, see registry.ts): plugins that need to wait for something
   * outside the process (webhooks) skip themselves. True for every other write, from the API or in-process.
   */
  canWait: boolean;
}

export interface AdmissionPlugin {
  name: string;
  /** Whether the plugin has anything to do for this request (cheap; lets the pipeline stay synchronous). */
  handles?(a: AdmissionAttributes): boolean;
  mutate?(a: AdmissionAttributes): void | Promise<void>;
  validate?(a: AdmissionAttributes): void | Promise<void>;
}

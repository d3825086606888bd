// The options of a create or update through the write pipeline (write.ts): their own module, which the update
// tracking (update-tracking.ts) and the registry's callers read without importing the pipeline.
import type { GroupVersionKind, KObject } from '../machinery/types.js';
import type { PartialWrite } from './resource.js';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /**
   * 'status' writes only .status; a partial write ('resize', 'ephemeralcontainers', 'approval' of CertificateSigningRequests) only the part its def declares;
   * anything else everything but .status.
   */
  subresource?: 'status' | PartialWrite;
  /** Collected `Warning` header texts. */
  warnings?: string[];
  /**
   * The object given to create is the caller's to give away (a decoded request body): it is not copied first. On an
   * update, the object the mutation returns is given away: only for a mutation that returns a new object every time
   * it is called (a retry calls it again), built from the copy it is passed and values nobody else holds.
   */
  owned?: boolean;
  /**
   * The update's mutation changes nothing it is passed (it returns new objects, sharing what it leaves unchanged, as
   * `(cur) => ({ ...cur, status })` does): it is passed the stored object itself instead of a copy. Stored objects
   * are shared by every reader, so a mutation that writes into its argument must never set this.
   */
  pure?: boolean;
  /**
   * How a component's write appears in the audit log when it is not a plain create/update (the scheduler's
   * binding is a `create` of `pods/binding`); false when it belongs to a write already recorded.
   */
  audit?: { verb: string; subresource?: string } | false;
  /** The version the request was made in (admission sees it); the storage version otherwise. */
  version?: string;
  /**
   * false: the server's own write (the bootstrap objects, built-in APIServices, CRD and policy status, a binding's or
   * an eviction's pod): no admission webhook is called for it. It still waits for a store that must (etcd).
   */
  webhooks?: false;
  /**
   * A subresource admission sees as an object of its own kind (the scale subresource: an autoscaling/v1 Scale):
   * its name, kind and the view of the object. Mutations of the view are not written back.
   */
  admitAs?: { subresource: string; kind: GroupVersionKind; view: (obj: KObject) => KObject };
  /** The request's User-Agent: names the manager of a write that sends no fieldManager (see update-tracking.ts). */
  userAgent?: string;
  /** The object's managedFields are already the write's (server-side apply): no Update entry is recorded. */
  managedFieldsSet?: boolean;
}

// An add-on: the CRDs a project ships and the controllers that reconcile them, talking to the rest of Bonsai only
// through the in-process client (STYLE.md theme 7). Each add-on is one folder under src/addons/ exporting an `Addon`.
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface AddonContext {
  /** A client acting as the add-on's controller identity. */
  client: Client;
  clock: Clock;
  log: Logger;
  /** The add-on's section of the cluster file's `addons` mapping (unvalidated: the add-on checks it), if any. */
  settings?: unknown;
}

export interface AddonHandle {
  stop(): void;
}

export interface Addon {
  /** The name `--addons` selects it by (`jobset`, `lws`, `sandbox`, ...). */
  name: string;
  /** CRD manifests (YAML files, paths relative to the project root), installed before the controllers start. */
  crds: string[];
  /**
   * What the add-on's identity may do under `--authorization-mode RBAC` (a ClusterRole bound to its ServiceAccount
   * kube-system/<name>-controller). When absent: every verb on the core, apps, batch, scheduling.k8s.io and
   * events.k8s.io groups and on the API groups of its own CRDs.
   */
  rules?: AddonRule[];
  /** Starts the add-on's controllers once its CRDs are established. */
  start(ctx: AddonContext): AddonHandle;
}

/** An RBAC PolicyRule (`''` is the core group). */
export interface AddonRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

// What the Karpenter controllers share: the catalog, the settings, the event recorder, and the state informers.
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { Informer } from '../../client/informer.js';
import type { Catalog } from './catalog.js';
import type { KarpenterSettings } from './settings.js';
import type { NodeClaim, NodePool } from './types.js';

export interface KarpenterDeps {
  catalog: Catalog;
  settings: KarpenterSettings;
  events: EventRecorder;
  nodePools: Informer<NodePool>;
  nodeClaims: Informer<NodeClaim>;
  /** Nodes (a Karpenter node is named as its NodeClaim). */
  nodes: Informer<Node>;
  /** Pods, indexed `node` by spec.nodeName. */
  pods: Informer<Pod>;
  /** Requests a provisioning pass soon (after a disruption frees or needs capacity). */
  trigger(): void;
  /** Tells the scheduler where the pods nominated to this claim should go (status.nominatedNodeName). */
  expectPlacements(claim: string): void | Promise<void>;
  /** The NodeClaims pending pods are nominated to (the provisioner's nominations). */
  nominated?(): ReadonlySet<string>;
}

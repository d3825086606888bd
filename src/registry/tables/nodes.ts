// Core (group '') printers for nodes, persistent volumes and persistent volume claims.
import type { Node, PersistentVolume, PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import {
  NODE_ADDRESSES,
  NODE_CONTAINER_RUNTIME,
  NODE_KERNEL_VERSION,
  NODE_KUBELET_VERSION,
  NODE_OS_IMAGE,
  PV_ACCESS_MODES,
  PV_CAPACITY,
  PV_CLAIM_REF,
  PV_PHASE,
  PV_REASON,
  PV_RECLAIM_POLICY,
  PV_VOLUME_MODE,
  PVC_ACCESS_MODES,
  PVC_CAPACITY,
  PVC_PHASE,
  PVC_VOLUME_MODE,
  PVC_VOLUME_NAME,
} from './descriptions.js';
import {
  ageCol,
  ageOf,
  col,
  isDeleting,
  list,
  meta,
  nameCol,
  nameOf,
  quantity,
  rec,
  sortedUnique,
  str,
  strMap,
  type TablePrinter,
} from './helpers.js';

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` label keys and the `kubernetes.io/role` label value. */
function nodeRoles(labels: Record<string, string>): string[] {
  const roles: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith(NODE_ROLE_PREFIX)) {
      const role = k.slice(NODE_ROLE_PREFIX.length);
      if (role !== '') roles.push(role);
    } else if (k === NODE_ROLE_LABEL && v !== '') {
      roles.push(v);
    }
  }
  return sortedUnique(roles);
}

function nodeAddress(node: Node, type: string): string {
  for (const a of list(rec(node.status).addresses)) {
    if (rec(a).type === type) return str(rec(a).address);
  }
  return '<none>';
}

export const nodePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageCol(),
    col('Version', 'string', NODE_KUBELET_VERSION),
    col('Internal-IP', 'string', NODE_ADDRESSES, 1),
    col('External-IP', 'string', NODE_ADDRESSES, 1),
    col('OS-Image', 'string', NODE_OS_IMAGE, 1),
    col('Kernel-Version', 'string', NODE_KERNEL_VERSION, 1),
    col('Container-Runtime', 'string', NODE_CONTAINER_RUNTIME, 1),
  ],
  cells(obj, now) {
    const node = obj;
    const status = rec(node.status);
    // The last Ready condition wins, as in a map keyed by condition type.
    let readyStatus: string | undefined;
    for (const c of list(status.conditions)) {
      if (rec(c).type === 'Ready') readyStatus = str(rec(c).status);
    }
    const states: string[] = [];
    if (readyStatus !== undefined) states.push(readyStatus === 'True' ? 'Ready' : 'NotReady');
    if (states.length === 0) states.push('Unknown');
    if (rec(node.spec).unschedulable === true) states.push('SchedulingDisabled');

    const roles = nodeRoles(strMap(meta(obj).labels)).join(',') || '<none>';
    const info = rec(status.nodeInfo);
    return [
      nameOf(obj),
      states.join(','),
      roles,
      ageOf(obj, now),
      str(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      str(info.osImage) || '<unknown>',
      str(info.kernelVersion) || '<unknown>',
      str(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

/** Access modes abbreviated, deduplicated, in the fixed order RWO,ROX,RWX,RWOP. */
export function accessModes(modes: unknown): string {
  const have = new Set(list(modes).map(str));
  const order: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return order
    .filter(([mode]) => have.has(mode))
    .map(([, short]) => short)
    .join(',');
}

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** The beta storage-class annotation wins over spec.storageClassName. */
function storageClassOf(annotations: Record<string, string>, specClass: unknown): string {
  if (BETA_STORAGE_CLASS_ANNOTATION in annotations) return annotations[BETA_STORAGE_CLASS_ANNOTATION];
  return str(specClass);
}

export const persistentVolumePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Capacity', 'string', PV_CAPACITY),
    col('Access Modes', 'string', PV_ACCESS_MODES),
    col('Reclaim Policy', 'string', PV_RECLAIM_POLICY),
    col('Status', 'string', PV_PHASE),
    col('Claim', 'string', PV_CLAIM_REF),
    col('StorageClass', 'string', 'StorageClass of the pv'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    col('Reason', 'string', PV_REASON),
    ageCol(),
    col('VolumeMode', 'string', PV_VOLUME_MODE, 1),
  ],
  cells(obj, now) {
    const pv = obj;
    const spec = rec(pv.spec);
    const status = rec(pv.status);
    let claim = '';
    if (spec.claimRef !== undefined && spec.claimRef !== null) {
      const ref = rec(spec.claimRef);
      claim = `${str(ref.namespace)}/${str(ref.name)}`;
    }
    const phase = isDeleting(obj) ? 'Terminating' : str(status.phase);
    const vac = spec.volumeAttributesClassName == null ? '<unset>' : str(spec.volumeAttributesClassName);
    const volumeMode = spec.volumeMode == null ? '<unset>' : str(spec.volumeMode);
    return [
      nameOf(obj),
      quantity(rec(spec.capacity).storage),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      phase,
      claim,
      storageClassOf(strMap(meta(obj).annotations), spec.storageClassName),
      vac,
      str(status.reason),
      ageOf(obj, now),
      volumeMode,
    ];
  },
};

export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Status', 'string', PVC_PHASE),
    col('Volume', 'string', PVC_VOLUME_NAME),
    col('Capacity', 'string', PVC_CAPACITY),
    col('Access Modes', 'string', PVC_ACCESS_MODES),
    col('StorageClass', 'string', 'StorageClass of the pvc'),
    col('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageCol(),
    col('VolumeMode', 'string', PVC_VOLUME_MODE, 1),
  ],
  cells(obj, now) {
    const pvc = obj;
    const spec = rec(pvc.spec);
    const status = rec(pvc.status);
    const phase = isDeleting(obj) ? 'Terminating' : str(status.phase);
    const volumeName = str(spec.volumeName);
    let capacity = '';
    let modes = '';
    if (volumeName !== '') {
      modes = accessModes(status.accessModes);
      capacity = quantity(rec(status.capacity).storage);
    }
    const vac = spec.volumeAttributesClassName == null ? '<unset>' : str(spec.volumeAttributesClassName);
    const volumeMode = spec.volumeMode == null ? '<unset>' : str(spec.volumeMode);
    return [
      nameOf(obj),
      phase,
      volumeName,
      capacity,
      modes,
      storageClassOf(strMap(meta(obj).annotations), spec.storageClassName),
      vac,
      ageOf(obj, now),
      volumeMode,
    ];
  },
};

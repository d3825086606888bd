// apps/v1 printers: deployments, replicasets, statefulsets, daemonsets, controllerrevisions.
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from '../../generated/k8s/apps/v1.js';
import {
  CR_REVISION,
  DEPLOY_AVAILABLE,
  DEPLOY_SELECTOR,
  DEPLOY_UPDATED,
  DS_AVAILABLE,
  DS_CURRENT,
  DS_DESIRED,
  DS_READY,
  DS_SELECTOR,
  DS_UPDATED,
  POD_NODE_SELECTOR,
  RS_SPEC_REPLICAS,
  RS_SPEC_SELECTOR,
  RS_STATUS_READY,
  RS_STATUS_REPLICAS,
} from './descriptions.js';
import {
  ageCol,
  ageOf,
  col,
  templateContainers,
  containerCols,
  formatLabels,
  formatLabelSelector,
  int,
  labelSelectorString,
  list,
  meta,
  nameCol,
  nameOf,
  optInt,
  rec,
  str,
  type TablePrinter,
} from './helpers.js';

const READY_DESC = 'Number of the pod with ready state';

/** spec.replicas, which apps/v1 defaulting sets to 1 when omitted. */
function desiredReplicas(spec: Record<string, unknown>): number {
  return optInt(spec.replicas) ?? 1;
}

export const deploymentPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Ready', 'string', READY_DESC),
    col('Up-to-date', 'string', DEPLOY_UPDATED),
    col('Available', 'string', DEPLOY_AVAILABLE),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', DEPLOY_SELECTOR, 1),
  ],
  cells(obj, now) {
    const d = obj;
    const spec = rec(d.spec);
    const status = rec(d.status);
    const [names, images] = templateContainers(spec);
    const selector = labelSelectorString(spec.selector) ?? '<invalid>';
    return [
      nameOf(obj),
      `${int(status.readyReplicas)}/${desiredReplicas(spec)}`,
      int(status.updatedReplicas),
      int(status.availableReplicas),
      ageOf(obj, now),
      names,
      images,
      selector,
    ];
  },
};

export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Desired', 'integer', RS_SPEC_REPLICAS),
    col('Current', 'integer', RS_STATUS_REPLICAS),
    col('Ready', 'integer', RS_STATUS_READY),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', RS_SPEC_SELECTOR, 1),
  ],
  cells(obj, now) {
    const rs = obj;
    const spec = rec(rs.spec);
    const status = rec(rs.status);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(obj),
      desiredReplicas(spec),
      int(status.replicas),
      int(status.readyReplicas),
      ageOf(obj, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

export const statefulSetPrinter: TablePrinter = {
  columns: [nameCol(), col('Ready', 'string', READY_DESC), ageCol(), ...containerCols()],
  cells(obj, now) {
    const ss = obj;
    const spec = rec(ss.spec);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(obj),
      `${int(rec(ss.status).readyReplicas)}/${desiredReplicas(spec)}`,
      ageOf(obj, now),
      names,
      images,
    ];
  },
};

export const daemonSetPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Desired', 'integer', DS_DESIRED),
    col('Current', 'integer', DS_CURRENT),
    col('Ready', 'integer', DS_READY),
    col('Up-to-date', 'integer', DS_UPDATED),
    col('Available', 'integer', DS_AVAILABLE),
    col('Node Selector', 'string', POD_NODE_SELECTOR),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', DS_SELECTOR, 1),
  ],
  cells(obj, now) {
    const ds = obj;
    const spec = rec(ds.spec);
    const status = rec(ds.status);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(obj),
      int(status.desiredNumberScheduled),
      int(status.currentNumberScheduled),
      int(status.numberReady),
      int(status.updatedNumberScheduled),
      int(status.numberAvailable),
      formatLabels(rec(rec(spec.template).spec).nodeSelector),
      ageOf(obj, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

/** `kind.group/name` (lower-cased kind and group) of the controlling owner, `<none>` without one. */
function controllerOf(ownerReferences: unknown): string {
  const owner = list(ownerReferences)
    .map(rec)
    .find((r) => r.controller === true);
  if (!owner) return '<none>';
  const apiVersion = str(owner.apiVersion);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const kind = str(owner.kind);
  const name = str(owner.name);
  if (group === '' && kind === '') return name;
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  return `${groupKind.toLowerCase()}/${name}`;
}

export const controllerRevisionPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Controller', 'string', 'Controller of the object'),
    col('Revision', 'string', CR_REVISION),
    ageCol(),
  ],
  cells(obj, now) {
    const cr = obj;
    return [nameOf(obj), controllerOf(meta(obj).ownerReferences), int(cr.revision), ageOf(obj, now)];
  },
};

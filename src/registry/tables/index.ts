// Server-side Table rendering (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): the
// column definitions and row cells upstream's printers produce for each served resource. Rows are
// always rendered with every column; clients hide priority > 0 columns unless asked for wide output.
import type { KObject } from '../../machinery/types.js';
import { controllerRevisionPrinter, daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from './apps.js';
import { horizontalPodAutoscalerPrinter } from './autoscaling.js';
import { cronJobPrinter, jobPrinter } from './batch.js';
import {
  configMapPrinter,
  endpointsPrinter,
  namespacePrinter,
  podTemplatePrinter,
  replicationControllerPrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from './core.js';
import { coreEventPrinter, eventsV1EventPrinter } from './events.js';
import { leasePrinter, podDisruptionBudgetPrinter, priorityClassPrinter } from './misc.js';
import { endpointSlicePrinter, ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './networking.js';
import { nodePrinter, persistentVolumeClaimPrinter, persistentVolumePrinter } from './nodes.js';
import { podPrinter } from './pods.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.js';
import { storageClassPrinter } from './storage.js';
import { certificateSigningRequestPrinter } from './certificates.js';
import { apiServicePrinter } from './apiregistration.js';
import { col, nameCol, nameOf, rfc3339, meta, type TableColumn, type TablePrinter } from './helpers.js';
import { CREATED } from './descriptions.js';

export type { TableColumn, TablePrinter };

/** Upstream's default table convertor: Name and the creation time as an RFC3339 date. */
export const defaultPrinter: TablePrinter = {
  columns: [nameCol(), col('Created At', 'date', CREATED)],
  cells(obj) {
    return [nameOf(obj), rfc3339(meta(obj).creationTimestamp)];
  },
};

/**
 * Wraps a printer so that an object it cannot make sense of still yields a full-width row
 * (the name, then `<unknown>`) instead of an exception.
 */
function guarded(printer: TablePrinter): TablePrinter {
  return {
    columns: printer.columns,
    cells(obj: KObject, now: Date): unknown[] {
      try {
        return printer.cells(obj, now);
      } catch {
        const nameAt = printer.columns.findIndex((c) => c.format === 'name');
        return printer.columns.map((_, i) => (i === nameAt ? safeName(obj) : '<unknown>'));
      }
    },
  };
}

function safeName(obj: KObject): string {
  try {
    return nameOf(obj);
  } catch {
    return '';
  }
}

/** Specific printers by `group/resource`. Resources not listed (limitranges, roles, clusterroles, ...) use the default. */
const specific: Record<string, TablePrinter> = {
  '/pods': podPrinter,
  '/podtemplates': podTemplatePrinter,
  '/replicationcontrollers': replicationControllerPrinter,
  '/services': servicePrinter,
  '/endpoints': endpointsPrinter,
  '/nodes': nodePrinter,
  '/events': coreEventPrinter,
  '/namespaces': namespacePrinter,
  '/resourcequotas': resourceQuotaPrinter,
  '/persistentvolumes': persistentVolumePrinter,
  '/persistentvolumeclaims': persistentVolumeClaimPrinter,
  '/configmaps': configMapPrinter,
  '/secrets': secretPrinter,
  '/serviceaccounts': serviceAccountPrinter,
  'apps/deployments': deploymentPrinter,
  'apps/replicasets': replicaSetPrinter,
  'apps/statefulsets': statefulSetPrinter,
  'apps/daemonsets': daemonSetPrinter,
  'apps/controllerrevisions': controllerRevisionPrinter,
  'batch/jobs': jobPrinter,
  'batch/cronjobs': cronJobPrinter,
  'autoscaling/horizontalpodautoscalers': horizontalPodAutoscalerPrinter,
  'policy/poddisruptionbudgets': podDisruptionBudgetPrinter,
  'coordination.k8s.io/leases': leasePrinter,
  'scheduling.k8s.io/priorityclasses': priorityClassPrinter,
  'discovery.k8s.io/endpointslices': endpointSlicePrinter,
  'events.k8s.io/events': eventsV1EventPrinter,
  'networking.k8s.io/ingresses': ingressPrinter,
  'networking.k8s.io/ingressclasses': ingressClassPrinter,
  'networking.k8s.io/networkpolicies': networkPolicyPrinter,
  'storage.k8s.io/storageclasses': storageClassPrinter,
  'rbac.authorization.k8s.io/rolebindings': roleBindingPrinter,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBindingPrinter,
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequestPrinter,
  'apiregistration.k8s.io/apiservices': apiServicePrinter,
};

const printers = new Map<string, TablePrinter>();
for (const [key, printer] of Object.entries(specific)) printers.set(key, guarded(printer));
const guardedDefault = guarded(defaultPrinter);

/**
 * The table printer for a resource. group '' is core; resource is the plural (e.g. 'pods',
 * 'deployments'). Resources without a specific printer get the default (Name, Created At).
 */
export function tablePrinterFor(group: string, resource: string): TablePrinter {
  return printers.get(`${group}/${resource}`) ?? guardedDefault;
}

// Core (group '') printers other than pods, nodes, volumes and events.
import type {
  ConfigMap,
  Endpoints,
  Namespace,
  PodTemplate,
  ReplicationController,
  ResourceQuota,
  Secret,
  Service,
} from '../../generated/k8s/core/v1.js';
import {
  CONFIGMAP_DATA,
  EP_SUBSETS,
  RC_SPEC_REPLICAS,
  RC_SPEC_SELECTOR,
  RC_STATUS_READY,
  RC_STATUS_REPLICAS,
  SECRET_DATA,
  SECRET_TYPE,
  SVC_CLUSTER_IP,
  SVC_EXTERNAL_IPS,
  SVC_PORTS,
  SVC_SELECTOR,
  SVC_TYPE,
} from './descriptions.js';
import {
  ageCol,
  ageOf,
  col,
  containerCells,
  templateContainers,
  containerCols,
  CONTAINERS_DESC,
  formatLabels,
  IMAGES_DESC,
  int,
  list,
  nameCol,
  nameOf,
  optInt,
  quantity,
  rec,
  sortedUnique,
  str,
  type TablePrinter,
} from './helpers.js';

export const podTemplatePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Containers', 'string', CONTAINERS_DESC),
    col('Images', 'string', IMAGES_DESC),
    col('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  cells(obj) {
    const template = rec((obj).template);
    const [names, images] = containerCells(rec(template.spec).containers);
    return [nameOf(obj), names, images, formatLabels(rec(template.metadata).labels)];
  },
};

export const replicationControllerPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Desired', 'integer', RC_SPEC_REPLICAS),
    col('Current', 'integer', RC_STATUS_REPLICAS),
    col('Ready', 'integer', RC_STATUS_READY),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', RC_SPEC_SELECTOR, 1),
  ],
  cells(obj, now) {
    const rc = obj;
    const spec = rec(rc.spec);
    const status = rec(rc.status);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(obj),
      optInt(spec.replicas) ?? 1, // v1 defaulting
      int(status.replicas),
      int(status.readyReplicas),
      ageOf(obj, now),
      names,
      images,
      formatLabels(spec.selector),
    ];
  },
};

/** Ingress points of a load balancer: unique IPs (or hostnames), sorted, comma-joined. */
export function loadBalancerIngress(status: unknown): string {
  const points: string[] = [];
  for (const i of list(rec(status).ingress)) {
    const ing = rec(i);
    if (str(ing.ip) !== '') points.push(str(ing.ip));
    else if (str(ing.hostname) !== '') points.push(str(ing.hostname));
  }
  return sortedUnique(points).join(',');
}

function serviceExternalIP(svc: Service): string {
  const spec = rec(svc.spec);
  const externalIPs = list(spec.externalIPs).map(str);
  switch (str(spec.type) || 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(rec(rec(svc.status).loadBalancer));
      if (externalIPs.length > 0) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(ports: unknown): string {
  return list(ports)
    .map((p) => {
      const port = rec(p);
      const protocol = str(port.protocol) || 'TCP';
      const nodePort = int(port.nodePort);
      return nodePort > 0 ? `${int(port.port)}:${nodePort}/${protocol}` : `${int(port.port)}/${protocol}`;
    })
    .join(',');
}

export const servicePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Type', 'string', SVC_TYPE),
    col('Cluster-IP', 'string', SVC_CLUSTER_IP),
    col('External-IP', 'string', SVC_EXTERNAL_IPS),
    col('Port(s)', 'string', SVC_PORTS),
    ageCol(),
    col('Selector', 'string', SVC_SELECTOR, 1),
  ],
  cells(obj, now) {
    const svc = obj;
    const spec = rec(svc.spec);
    // spec.clusterIP wins over clusterIPs[0] (the v1 -> internal conversion rule).
    const clusterIP = str(spec.clusterIP) || str(list(spec.clusterIPs)[0]) || '<none>';
    const ports = servicePorts(spec.ports) || '<none>';
    return [
      nameOf(obj),
      str(spec.type) || 'ClusterIP',
      clusterIP,
      serviceExternalIP(svc),
      ports,
      ageOf(obj, now),
      formatLabels(spec.selector),
    ];
  },
};

/** Go's net.JoinHostPort: IPv6 literals are bracketed. */
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function formatEndpoints(ep: Endpoints): string {
  const subsets = list(ep.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const s of subsets) {
    const subset = rec(s);
    const addresses = list(subset.addresses).map((a) => str(rec(a).ip));
    const ports = list(subset.ports);
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(ip);
      }
      continue;
    }
    for (const p of ports) {
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(joinHostPort(ip, int(rec(p).port)));
      }
    }
  }
  const joined = shown.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsPrinter: TablePrinter = {
  columns: [nameCol(), col('Endpoints', 'string', EP_SUBSETS), ageCol()],
  cells(obj, now) {
    return [nameOf(obj), formatEndpoints(obj), ageOf(obj, now)];
  },
};

export const namespacePrinter: TablePrinter = {
  columns: [nameCol(), col('Status', 'string', 'The status of the namespace'), ageCol()],
  cells(obj, now) {
    return [nameOf(obj), str(rec((obj).status).phase), ageOf(obj, now)];
  },
};

export const configMapPrinter: TablePrinter = {
  columns: [nameCol(), col('Data', 'string', CONFIGMAP_DATA), ageCol()],
  cells(obj, now) {
    const cm = obj;
    const n = Object.keys(rec(cm.data)).length + Object.keys(rec(cm.binaryData)).length;
    return [nameOf(obj), n, ageOf(obj, now)];
  },
};

export const secretPrinter: TablePrinter = {
  columns: [nameCol(), col('Type', 'string', SECRET_TYPE), col('Data', 'string', SECRET_DATA), ageCol()],
  cells(obj, now) {
    const secret = obj;
    // stringData is merged into data when written; count both in case it was not.
    const keys = new Set([...Object.keys(rec(secret.data)), ...Object.keys(rec(secret.stringData))]);
    return [nameOf(obj), str(secret.type), keys.size, ageOf(obj, now)];
  },
};

export const serviceAccountPrinter: TablePrinter = {
  columns: [nameCol(), ageCol()],
  cells(obj, now) {
    return [nameOf(obj), ageOf(obj, now)];
  },
};

export const resourceQuotaPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    ageCol(),
  ],
  cells(obj, now) {
    const status = rec((obj).status);
    const hard = rec(status.hard);
    const used = rec(status.used);
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const pieces = resource.split('.');
      const target = pieces.length > 1 && pieces[0] === 'limits' ? limits : requests;
      target.push(`${resource}: ${quantity(used[resource])}/${quantity(hard[resource])}`);
    }
    return [nameOf(obj), requests.join(', '), limits.join(', '), ageOf(obj, now)];
  },
};

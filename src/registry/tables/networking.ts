// networking.k8s.io printers (ingresses, ingressclasses, networkpolicies) and
// discovery.k8s.io endpointslices.
import type { Ingress, IngressClass, NetworkPolicy } from '../../generated/k8s/networking/v1.js';
import type { EndpointSlice } from '../../generated/k8s/discovery/v1.js';
import { EPS_ADDRESS_TYPE, EPS_ENDPOINTS, EPS_PORTS, NETPOL_POD_SELECTOR } from './descriptions.js';
import { loadBalancerIngress } from './core.js';
import {
  ageCol,
  ageOf,
  col,
  formatLabelSelector,
  int,
  list,
  listWithMore,
  nameCol,
  nameOf,
  rec,
  str,
  type TablePrinter,
} from './helpers.js';

/** Up to three rule hosts, `*` when none has a host. */
function formatHosts(rules: unknown[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === max) more = true;
    const host = str(rec(r).host);
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  const joined = hosts.join(',');
  return more ? `${joined} + ${rules.length - max} more...` : joined;
}

export const ingressPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'string', 'Ports of TLS configurations that open'),
    ageCol(),
  ],
  cells(obj, now) {
    const ing = obj;
    const spec = rec(ing.spec);
    const className = spec.ingressClassName == null ? '<none>' : str(spec.ingressClassName);
    const ports = list(spec.tls).length !== 0 ? '80, 443' : '80';
    return [
      nameOf(obj),
      className,
      formatHosts(list(spec.rules)),
      loadBalancerIngress(rec(rec(ing.status).loadBalancer)),
      ports,
      ageOf(obj, now),
    ];
  },
};

export const ingressClassPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Controller', 'string', 'Controller that is responsible for handling this class'),
    col('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageCol(),
  ],
  cells(obj, now) {
    const spec = rec((obj).spec);
    let parameters = '<none>';
    if (spec.parameters !== undefined && spec.parameters !== null) {
      const p = rec(spec.parameters);
      parameters = str(p.kind);
      if (p.apiGroup !== undefined && p.apiGroup !== null) parameters += `.${str(p.apiGroup)}`;
      parameters += `/${str(p.name)}`;
    }
    return [nameOf(obj), str(spec.controller), parameters, ageOf(obj, now)];
  },
};

export const networkPolicyPrinter: TablePrinter = {
  columns: [nameCol(), col('Pod-Selector', 'string', NETPOL_POD_SELECTOR), ageCol()],
  cells(obj, now) {
    const spec = rec((obj).spec);
    return [nameOf(obj), formatLabelSelector(rec(spec.podSelector)), ageOf(obj, now)];
  },
};

function formatSlicePorts(ports: unknown[]): string {
  const shown = ports.map((p) => {
    const port = rec(p);
    if (port.port !== undefined && port.port !== null) return String(int(port.port));
    if (port.name !== undefined && port.name !== null) return str(port.name);
    return '*';
  });
  return listWithMore(shown, shown.length, 3);
}

function formatSliceEndpoints(endpoints: unknown[]): string {
  const addresses = endpoints.flatMap((e) => list(rec(e).addresses).map(str));
  return listWithMore(addresses, addresses.length, 3);
}

export const endpointSlicePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('AddressType', 'string', EPS_ADDRESS_TYPE),
    col('Ports', 'string', EPS_PORTS),
    col('Endpoints', 'string', EPS_ENDPOINTS),
    ageCol(),
  ],
  cells(obj, now) {
    const slice = obj;
    return [
      nameOf(obj),
      str(slice.addressType),
      formatSlicePorts(list(slice.ports)),
      formatSliceEndpoints(list(slice.endpoints)),
      ageOf(obj, now),
    ];
  },
};

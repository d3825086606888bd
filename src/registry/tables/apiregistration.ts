// Printer for apiregistration.k8s.io APIServices (kube-aggregator's table: NAME, SERVICE, AVAILABLE, AGE).
import { ageCol, ageOf, col, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

export const apiServicePrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    col('Available', 'string', 'Whether this service is available.'),
    ageCol(),
  ],
  cells(obj, now) {
    const spec = rec(obj.spec);
    const svc = spec.service == null ? undefined : rec(spec.service);
    const service = svc ? `${str(svc.namespace)}/${str(svc.name)}` : 'Local';
    const available = list<Record<string, unknown>>(rec(obj.status).conditions).find((c) => rec(c).type === 'Available');
    let status = 'Unknown';
    if (available) {
      const s = str(available.status);
      status = s !== 'True' && str(available.reason) ? `${s} (${str(available.reason)})` : s;
    }
    return [nameOf(obj), service, status, ageOf(obj, now)];
  },
};

// The table of CustomResourceDefinitions themselves (`kubectl get crd`). Kubernetes 1.35 serves them with the
// generic default table convertor, NAME and CREATED AT (an RFC3339 date); newer releases add Scope, Versions and more.
import { CREATED } from '../registry/tables/descriptions.js';
import { col, meta, nameCol, nameOf, rfc3339, type TablePrinter } from '../registry/tables/helpers.js';

export const customResourceDefinitionTable: TablePrinter = {
  columns: [nameCol(), col('Created At', 'date', CREATED)],
  cells(obj) {
    return [nameOf(obj), rfc3339(meta(obj).creationTimestamp)];
  },
};

// rbac.authorization.k8s.io printers: rolebindings and clusterrolebindings. Roles and
// clusterroles have no printer upstream and get the default Name/Created At table.
import type { KObject } from '../../machinery/types.js';
import type { RoleBinding } from '../../generated/k8s/rbac/v1.js';
import { CRB_ROLE_REF, RB_ROLE_REF } from './descriptions.js';
import { ageCol, ageOf, col, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

/** Subjects split into users, groups and `namespace/name` service accounts. */
function subjects(obj: KObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of list((obj).subjects).map(rec)) {
    if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
    else if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingPrinter(roleRefDesc: string, what: string): TablePrinter {
  return {
    columns: [
      nameCol(),
      col('Role', 'string', roleRefDesc),
      ageCol(),
      col('Users', 'string', `Users in the ${what}`, 1),
      col('Groups', 'string', `Groups in the ${what}`, 1),
      col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, 1),
    ],
    cells(obj, now) {
      const ref = rec((obj).roleRef);
      return [nameOf(obj), `${str(ref.kind)}/${str(ref.name)}`, ageOf(obj, now), ...subjects(obj)];
    },
  };
}

export const roleBindingPrinter = bindingPrinter(RB_ROLE_REF, 'roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter(CRB_ROLE_REF, 'clusterRoleBinding');

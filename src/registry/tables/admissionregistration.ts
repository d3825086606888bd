// Printers for admissionregistration.k8s.io: webhook configurations, ValidatingAdmissionPolicies and their bindings,
// with the columns kube-apiserver's internal printers declare.
import { ageCol, ageOf, col, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

const WEBHOOKS = 'Webhooks indicates the number of webhooks registered in this configuration';

export const webhookConfigurationPrinter: TablePrinter = {
  columns: [nameCol(), col('Webhooks', 'integer', WEBHOOKS), ageCol()],
  cells(obj, now) {
    return [nameOf(obj), list(obj.webhooks).length, ageOf(obj, now)];
  },
};

export const validatingAdmissionPolicyPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    col('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageCol(),
  ],
  cells(obj, now) {
    const spec = rec(obj.spec);
    const pk = spec.paramKind == null ? undefined : rec(spec.paramKind);
    const paramKind = pk ? `${str(pk.apiVersion)}/${str(pk.kind)}` : '<unset>';
    return [nameOf(obj), list(spec.validations).length, paramKind, ageOf(obj, now)];
  },
};

/** A LabelSelector as its generated Go String() prints it (what upstream's printer shows for a selector paramRef). */
function goSelectorString(v: unknown): string {
  const sel = rec(v);
  const labels = rec(sel.matchLabels);
  const keys = Object.keys(labels).sort();
  const matchLabels = `map[string]string{${keys.map((k) => `${k}: ${str(labels[k])},`).join('')}}`;
  const exprs = list(sel.matchExpressions).map((e) => {
    const r = rec(e);
    return `LabelSelectorRequirement{Key:${str(r.key)},Operator:${str(r.operator)},Values:[${list(r.values).map(str).join(' ')}],},`;
  });
  return `&LabelSelector{MatchLabels:${matchLabels},MatchExpressions:[]LabelSelectorRequirement{${exprs.join('')}},}`;
}

/** The ParamRef cell: `namespace/name`, `*\/name` when no namespace is given, or the selector. */
function paramRefCell(v: unknown): string {
  if (v == null) return '<unset>';
  const pr = rec(v);
  const name = str(pr.name);
  if (name) return str(pr.namespace) ? `${str(pr.namespace)}/${name}` : `*/${name}`;
  if (pr.selector != null) return goSelectorString(pr.selector);
  return '<unset>';
}

export const validatingAdmissionPolicyBindingPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    col('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageCol(),
  ],
  cells(obj, now) {
    const spec = rec(obj.spec);
    return [nameOf(obj), str(spec.policyName), paramRefCell(spec.paramRef), ageOf(obj, now)];
  },
};

// The CustomResourceDefinition Gatekeeper's controller makes for a ConstraintTemplate (the constraint kind the
// template declares), as OPA's constraint framework builds it: group constraints.gatekeeper.sh, cluster-scoped,
// plural and singular the lower-cased kind, categories constraint/constraints, v1beta1 stored and v1alpha1 served,
// a status subresource; spec holds `match` (the admission target's matcher), `enforcementAction` (default deny)
// and `parameters` (the template's schema; a legacySchema template's gets x-kubernetes-preserve-unknown-fields
// at every object, array and untyped level). Pure data, used by gatekeeper-effects.ts.
import { isRecord, type KObject } from '../machinery/types.js';

type Schema = Record<string, unknown>;

export const constraintGroup = 'constraints.gatekeeper.sh';

const str: Schema = { type: 'string' };
const strings: Schema = { type: 'array', items: str };
/** A namespace name or a prefix glob (`kube-*`), as the matcher accepts. */
const globbed: Schema = { type: 'string', pattern: '^(\\*|\\*-)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\*|-\\*)?$' };
const selector: Schema = {
  type: 'object',
  properties: {
    matchLabels: { type: 'object', additionalProperties: str },
    matchExpressions: {
      type: 'array',
      items: {
        type: 'object',
        properties: { key: str, operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }, values: strings },
      },
    },
  },
};

/** Which objects a constraint applies to (gatekeeper's admission target matcher). */
const matchSchema: Schema = {
  type: 'object',
  properties: {
    kinds: { type: 'array', items: { type: 'object', properties: { apiGroups: strings, kinds: strings } } },
    scope: { type: 'string', enum: ['*', 'Cluster', 'Namespaced'] },
    namespaces: { type: 'array', items: globbed },
    excludedNamespaces: { type: 'array', items: globbed },
    labelSelector: selector,
    namespaceSelector: selector,
    name: { type: 'string', pattern: '^(\\*|\\*-)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\*|-\\*)?$' },
    source: { type: 'string', enum: ['All', 'Generated', 'Original'] },
  },
};

const maxDepth = 64;

/** A copy of `s` with preserve-unknown-fields wherever a legacy (v1beta1-era) schema leaves objects open. */
function preserveUnknown(s: unknown, depth = 0): unknown {
  if (!isRecord(s) || depth > maxDepth) return s;
  const out: Schema = Object.create(null) as Schema;
  for (const [k, v] of Object.entries(s)) out[k] = v;
  const type = s.type;
  if (type === undefined || type === 'object') out['x-kubernetes-preserve-unknown-fields'] = true;
  if (type === 'array' && !isRecord(s.items)) out.items = { 'x-kubernetes-preserve-unknown-fields': true };
  if (isRecord(s.properties)) {
    const props: Schema = Object.create(null) as Schema;
    for (const [k, v] of Object.entries(s.properties)) props[k] = preserveUnknown(v, depth + 1);
    out.properties = props;
  }
  if (isRecord(out.items)) out.items = preserveUnknown(out.items, depth + 1);
  if (isRecord(s.additionalProperties)) out.additionalProperties = preserveUnknown(s.additionalProperties, depth + 1);
  return out;
}

export interface ConstraintCrdResult {
  crd?: KObject;
  /** Why no CRD can be made (gatekeeper reports it in the template's status). */
  error?: string;
}

/** The constraint CRD for `template`, or why there is none. */
export function constraintCrdFor(template: KObject): ConstraintCrdResult {
  const spec = isRecord(template.spec) ? template.spec : {};
  const crdSpec = isRecord(spec.crd) && isRecord(spec.crd.spec) ? spec.crd.spec : {};
  const names = isRecord(crdSpec.names) ? crdSpec.names : {};
  const kind = typeof names.kind === 'string' ? names.kind : '';
  const name = template.metadata.name ?? '';
  if (!kind) return { error: 'the ConstraintTemplate has no spec.crd.spec.names.kind' };
  if (kind.toLowerCase() !== name) return { error: `the ConstraintTemplate's name "${name}" is not equal to the lowercase of CRD's Kind: "${kind.toLowerCase()}"` };
  const validation = isRecord(crdSpec.validation) ? crdSpec.validation : {};
  const props: Schema = { match: matchSchema, enforcementAction: { type: 'string', default: 'deny' } };
  if (isRecord(validation.openAPIV3Schema)) {
    props.parameters = validation.legacySchema === true ? preserveUnknown(validation.openAPIV3Schema) : validation.openAPIV3Schema;
  }
  const schema: Schema = {
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } },
      spec: { type: 'object', properties: props },
      status: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  const version = (v: string, storage: boolean) => ({ name: v, served: true, storage, schema: { openAPIV3Schema: schema }, subresources: { status: {} } });
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames.filter((s): s is string => typeof s === 'string') : [];
  const plural = kind.toLowerCase();
  return {
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${constraintGroup}`, labels: { ...(template.metadata.labels ?? {}), 'gatekeeper.sh/constraint': 'yes' } },
      spec: {
        group: constraintGroup, scope: 'Cluster',
        names: { kind, listKind: `${kind}List`, plural, singular: plural, categories: ['constraint', 'constraints'], ...(shortNames.length ? { shortNames } : {}) },
        versions: [version('v1beta1', true), version('v1alpha1', false)],
      },
    },
  };
}

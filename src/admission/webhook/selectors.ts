// namespaceSelector and objectSelector, as upstream's webhook predicates (and policy matching) apply them.
import type { AdmissionAttributes } from '../types.js';
import { notFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { selectorIsEmpty, selectorMatches } from '../../registry/validation/common.js';

const isNamespaceRequest = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'namespaces';

/**
 * The labels the namespaceSelector is matched against: a Namespace being created or updated offers its own labels,
 * anything else its namespace's. Throws NotFound when the namespace does not exist.
 */
export function namespaceLabels(a: AdmissionAttributes): unknown {
  if (isNamespaceRequest(a) && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return a.object?.metadata?.labels;
  const name = a.namespace || (isNamespaceRequest(a) ? a.name : '');
  const ns = a.registry.getStored('core/namespaces', '', name);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, name);
  return ns.metadata?.labels;
}

/** Cluster-scoped objects (other than namespaces) always match; an empty selector matches everything. */
export function matchesNamespaceSelector(selector: unknown, a: AdmissionAttributes): boolean {
  if (a.namespace === '' && !isNamespaceRequest(a)) return true;
  if (selectorIsEmpty(selector)) return true;
  return selectorMatches(selector, namespaceLabels(a));
}

const labelsMatch = (selector: unknown, obj: KObject | undefined) => obj !== undefined && obj !== null && selectorMatches(selector, obj.metadata?.labels);

/** The new or the old object's labels match (either suffices); an empty selector matches everything. */
export function matchesObjectSelector(selector: unknown, a: AdmissionAttributes): boolean {
  if (selectorIsEmpty(selector)) return true;
  return labelsMatch(selector, a.object) || labelsMatch(selector, a.oldObject);
}

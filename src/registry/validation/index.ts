// Entry point of semantic validation: metadata rules for every kind, then the kind's own rules, with upstream's
// field paths and messages. `old` is set on updates.
import type { FieldError } from '../../machinery/errors.js';
import type { GroupVersionKind, KObject } from '../../machinery/types.js';
import { appsValidators } from './apps.js';
import { validateCronJob, validateJob } from './batch.js';
import { validateObjectMeta, validateObjectMetaUpdate, type Errs } from './common.js';
import {
  validateConfigMap, validateNamespace, validatePod, validatePodTemplateKind, validatePvc, validatePvcSpec, validateReplicationController,
  validateSecret, validateService,
} from './core.js';
import { nameIsDns1035Label, nameIsDnsLabel, nameIsDnsSubdomain, nameIsPathSegment, type NameFn } from './names.js';
import { validateHpa, validateIngress, validateNetworkPolicy, validatePdb, validateRole, validateRoleBinding } from './other.js';

type KindValidator = (obj: KObject, old: KObject | undefined) => Errs;

const rbac = 'rbac.authorization.k8s.io';
const nameRules: Record<string, NameFn> = {
  '/Namespace': nameIsDnsLabel,
  '/Service': nameIsDns1035Label,
  [`${rbac}/Role`]: nameIsPathSegment,
  [`${rbac}/ClusterRole`]: nameIsPathSegment,
  [`${rbac}/RoleBinding`]: nameIsPathSegment,
  [`${rbac}/ClusterRoleBinding`]: nameIsPathSegment,
  '/Event': nameIsPathSegment,
  'events.k8s.io/Event': nameIsPathSegment,
  'certificates.k8s.io/CertificateSigningRequest': nameIsPathSegment,
  'apiregistration.k8s.io/APIService': nameIsPathSegment,
};

const validators: Record<string, KindValidator> = {
  '/Pod': validatePod,
  '/PodTemplate': validatePodTemplateKind,
  '/ReplicationController': validateReplicationController,
  '/Service': validateService,
  '/ConfigMap': validateConfigMap,
  '/Secret': validateSecret,
  '/PersistentVolumeClaim': validatePvc,
  '/Namespace': validateNamespace,
  'batch/Job': validateJob,
  'batch/CronJob': validateCronJob,
  [`${rbac}/Role`]: (o) => validateRole(o, true),
  [`${rbac}/ClusterRole`]: (o) => validateRole(o, false),
  [`${rbac}/RoleBinding`]: (o, old) => validateRoleBinding(o, old, false),
  [`${rbac}/ClusterRoleBinding`]: (o, old) => validateRoleBinding(o, old, true),
  'autoscaling/HorizontalPodAutoscaler': validateHpa,
  'policy/PodDisruptionBudget': validatePdb,
  'networking.k8s.io/Ingress': validateIngress,
  'networking.k8s.io/NetworkPolicy': validateNetworkPolicy,
};
for (const [kind, fn] of Object.entries(appsValidators)) validators[`apps/${kind}`] = fn;

/** Volume claim templates of a StatefulSet get PVC spec rules (path `spec.volumeClaimTemplates[i].spec`). */
function statefulSetClaims(obj: KObject): Errs {
  const templates = (obj.spec as { volumeClaimTemplates?: Array<{ spec?: unknown }> } | undefined)?.volumeClaimTemplates;
  return Array.isArray(templates) ? templates.flatMap((t, i) => validatePvcSpec(t?.spec, `spec.volumeClaimTemplates[${i}].spec`)) : [];
}

/**
 * Semantic validation of `obj` (after defaulting). Returns upstream-shaped field errors; empty means valid.
 * On update, metadata immutability and the kind's update rules are checked against `old`.
 */
export function validateObject(gvk: GroupVersionKind, obj: KObject, old: KObject | undefined, scope: { namespaced: boolean }): FieldError[] {
  const key = `${gvk.group}/${gvk.kind}`;
  const errs: Errs = [];
  if (!old) {
    errs.push(...validateObjectMeta(obj, {
      namespaced: scope.namespaced,
      nameFn: nameRules[key] ?? nameIsDnsSubdomain,
      maxNameLength: key === 'batch/CronJob' ? 52 : undefined,
    }));
  } else {
    errs.push(...validateObjectMetaUpdate(obj, old));
    errs.push(...validateObjectMeta(obj, { namespaced: scope.namespaced, nameFn: () => [] }).filter((e) => !e.field.startsWith('metadata.name')));
  }
  const fn = validators[key];
  if (fn) errs.push(...fn(obj, old));
  if (key === 'apps/StatefulSet' && !old) errs.push(...statefulSetClaims(obj));
  return errs;
}

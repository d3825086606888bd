// KEDA's ScaledObject validating webhook (kedacore/keda `vscaledobject.kb.io`), in process: another ScaledObject
// already scaling the same workload or owning the same HPA name, an HPA (not KEDA's own) already scaling the
// workload, cpu/memory triggers on a Deployment or StatefulSet whose containers request neither the resource nor get
// it from a LimitRange default (and only such triggers with minReplicaCount 0), replica bounds, fallback, name lengths
// and triggers. Upstream runs its checks from a Go map (in no fixed order) and answers the first error as a plain
// error, which controller-runtime turns into 403 Forbidden. An update that only removes finalizers is not checked; a dry run skips the workload lookup.
import type { Client } from '../../client/client.js';
import type { AdmissionPlugin } from '../../admission/types.js';
import type { KObject } from '../../machinery/types.js';
import { getOwn } from '../../util/own.js';
import { quantityValue } from '../../machinery/resources.js';
import { denied, validatingWebhook } from '../validating-webhook.js';
import { hpaNameOf } from './hpa.js';
import { replicaBoundsError, scaledObjectSpec, type ScaledObjectSpec } from './spec.js';
import { validateTriggers } from './webhook-jobs-auth.js';

const maxLabelValue = 63;
const ownerLabel = 'scaledobject.keda.sh/name';
const transferAnnotation = 'scaledobject.keda.sh/transfer-hpa-ownership';
const hpaValidationAnnotation = 'validations.keda.sh/hpa-ownership';

type Resources = { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
type Container = { name?: string; resources?: Resources };

/** KEDA's GVKString of a scale target: `group/version.Kind` (`apps/v1.Deployment`). */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}.${kind}`;
}

const annotations = (o: KObject) => o.metadata.annotations ?? {};

function verifyScaledObjects(client: Client, so: KObject, spec: ScaledObjectSpec): string | undefined {
  const ns = so.metadata.namespace ?? '';
  const mine = gvkString(spec.target.apiVersion, spec.target.kind);
  const hpaName = hpaNameOf(so, spec);
  const others = client.list('keda.sh/v1alpha1/scaledobjects', ns).filter((o) => o.metadata.name !== so.metadata.name);
  for (const o of others) {
    const s = scaledObjectSpec(o.spec);
    if (s.target.name === spec.target.name && gvkString(s.target.apiVersion, s.target.kind) === mine) {
      return `the workload '${s.target.name}' of type '${mine}' is already managed by the ScaledObject '${o.metadata.name}'`;
    }
  }
  for (const o of others) {
    if (hpaNameOf(o, scaledObjectSpec(o.spec)) === hpaName) return `the HPA '${hpaName}' is already managed by the ScaledObject '${o.metadata.name}'`;
  }
  return undefined;
}

function verifyHpas(client: Client, so: KObject, spec: ScaledObjectSpec): string | undefined {
  const mine = gvkString(spec.target.apiVersion, spec.target.kind);
  for (const hpa of client.list('autoscaling/v2/horizontalpodautoscalers', so.metadata.namespace ?? '')) {
    if (annotations(hpa)[hpaValidationAnnotation] === 'false') continue;
    const ref = (hpa.spec as { scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string } } | undefined)?.scaleTargetRef ?? {};
    if (ref.name !== spec.target.name || gvkString(ref.apiVersion || 'apps/v1', ref.kind || 'Deployment') !== mine) continue;
    if ((hpa.metadata.ownerReferences ?? []).some((r) => r.kind === 'ScaledObject' && r.name === so.metadata.name)) continue;
    if (annotations(so)[transferAnnotation] !== 'true') {
      return `the workload '${spec.target.name}' of type '${mine}' is already managed by the hpa '${hpa.metadata.name}'`;
    }
    if (spec.hpaName !== hpa.metadata.name) {
      return `the existing hpa '${hpa.metadata.name}' for workload '${spec.target.name}' of type '${mine}' must be specified by name in advanced settings to enable ownership transfer`;
    }
  }
  return undefined;
}

/** The quantity `m[resource]` is set and above zero. */
const positive = (m: Record<string, unknown> | undefined, resource: string) => !!m && quantityValue(getOwn(m, resource)) > 0;

/** A LimitRange of the namespace gives containers a default (limit) or default request for `resource`. */
function limitRangeDefault(client: Client, ns: string, resource: string): boolean {
  return client.list('v1/limitranges', ns).some((lr) => {
    const limits = (lr.spec as { limits?: Array<{ type?: string; default?: Record<string, unknown>; defaultRequest?: Record<string, unknown> }> } | undefined)?.limits ?? [];
    return limits.some((l) => l.type === 'Container' && (positive(l.default, resource) || positive(l.defaultRequest, resource)));
  });
}

function verifyCpuMemory(client: Client, so: KObject, spec: ScaledObjectSpec, dryRun: boolean): string | undefined {
  const resourceTriggers = spec.triggers.filter((t) => t.type === 'cpu' || t.type === 'memory');
  if (dryRun || !resourceTriggers.length) return undefined;
  const ns = so.metadata.namespace ?? '';
  const gvk = gvkString(spec.target.apiVersion, spec.target.kind);
  const res = gvk === 'apps/v1.Deployment' ? 'apps/v1/deployments' : gvk === 'apps/v1.StatefulSet' ? 'apps/v1/statefulsets' : undefined;
  if (!res) return undefined;
  const workload = client.get(res, ns, spec.target.name);
  // Upstream's lookup fails with the client's not-found error.
  if (!workload) return `${res === 'apps/v1/deployments' ? 'deployments' : 'statefulsets'}.apps "${spec.target.name}" not found`;
  const containers = ((workload.spec as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec?.containers) ?? [];
  for (const t of resourceTriggers) {
    const only = t.metadata.get('containerName') ?? '';
    for (const c of containers) {
      if (only && c.name !== only) continue;
      if (!positive(c.resources?.requests, t.type) && !positive(c.resources?.limits, t.type) && !limitRangeDefault(client, ns, t.type)) {
        return `the scaledobject has a ${t.type} trigger but the container ${c.name ?? ''} doesn't have the ${t.type} request defined`;
      }
    }
  }
  if (resourceTriggers.length === spec.triggers.length && !spec.minReplicaCount) return "scaledobject has only cpu/memory triggers AND minReplica is 0 (scale to zero doesn't work in this case)";
  return undefined;
}

function verifyFallback(spec: ScaledObjectSpec): string | undefined {
  const fb = spec.fallback;
  if (!fb) return undefined;
  if (fb.failureThreshold < 0 || fb.replicas < 0) return `FailureThreshold=${fb.failureThreshold} & Replicas=${fb.replicas} must both be greater than or equal to 0`;
  if (!spec.triggers.some((t) => t.type !== 'cpu' && t.type !== 'memory')) return 'at least one trigger (that is not cpu or memory) has to have the `AverageValue` type for the fallback to be enabled';
  return undefined;
}

function verifyName(so: KObject, spec: ScaledObjectSpec): string | undefined {
  const name = so.metadata.name ?? '';
  if (name.length > maxLabelValue) return `scaledobject name ${JSON.stringify(name)} is ${name.length} characters long; must be no more than ${maxLabelValue} characters because it is used as the ${JSON.stringify(ownerLabel)} label value`;
  const hpa = hpaNameOf(so, spec);
  if (hpa.length > maxLabelValue) return `HPA name ${JSON.stringify(hpa)} derived from scaledobject is ${hpa.length} characters long; must be no more than ${maxLabelValue} characters; set spec.advanced.horizontalPodAutoscalerConfig.name to a shorter name or shorten the scaledobject name`;
  return undefined;
}

const finalizerRemoval = (so: KObject, old: KObject) =>
  (so.metadata.finalizers ?? []).length < (old.metadata.finalizers ?? []).length && JSON.stringify(so.spec) === JSON.stringify(old.spec);

export function scaledObjectWebhook(client: Client): AdmissionPlugin {
  return validatingWebhook({
    name: 'vscaledobject.kb.io', group: 'keda.sh', plural: 'scaledobjects',
    validate(so, old, a) {
      if (old && finalizerRemoval(so, old)) return undefined;
      const spec = scaledObjectSpec(so.spec);
      const error = verifyScaledObjects(client, so, spec) ?? verifyCpuMemory(client, so, spec, a.dryRun) ?? verifyHpas(client, so, spec)
        ?? replicaBoundsError(spec) ?? verifyFallback(spec) ?? verifyName(so, spec) ?? validateTriggers((so.spec as { triggers?: unknown } | undefined)?.triggers);
      return error === undefined ? undefined : denied(error);
    },
  });
}

// Server services in-process components use besides reads and writes, adapted to take a Client: pod binding
// (the pods/binding subresource), eviction, the simulated and external metrics pipelines, the default StorageClass
// and the cluster's PKI.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { StorageClass } from '../generated/k8s/storage/v1.js';
import { bindPod as bind } from '../registry/pod-binding.js';
import { podUsageNow as usage, type Usage } from '../kubelet/metrics-data.js';
import { securityOf as security, type Security } from '../auth/security.js';
import type { KObject } from '../machinery/types.js';
import { defaultStorageClass as defaultClass } from '../registry/resources/claims.js';
import type { AdmissionPlugin } from '../admission/types.js';
import type { ExternalMetricsSource, ExternalMetricValue } from '../metrics-apis/sources.js';
import { metricByName, metricBySelector, type CustomMetricValue } from '../metrics-apis/custom-metrics.js';
import type { Selector } from '../machinery/labels.js';
import { evictPod as evict } from '../registry/pod-eviction.js';
import type { DeleteOptions } from '../registry/registry.js';
import { registryOf, type Client } from './client.js';

/** Creates the pod's binding to `nodeName` (pods/binding), as the scheduler does; returns the bound pod. */
export function bindPod(client: Client, namespace: string, name: string, nodeName: string): KObject {
  return bind(registryOf(client), namespace, name, { target: { kind: 'Node', name: nodeName } } as unknown as KObject, false);
}

/** What the metrics pipeline reports for a running pod's containers now (undefined when it has no metrics). */
export function podUsageNow(client: Client, pod: Pod): Array<{ name: string } & Usage> | undefined {
  return usage(registryOf(client), pod);
}

/** The StorageClass DefaultStorageClass admission would pick. */
export function defaultStorageClass(client: Client): StorageClass | undefined {
  return defaultClass(registryOf(client));
}

/** The cluster's keys and CA (service account token signing, CSR signing). */
export function securityOf(client: Client): Security {
  return security(registryOf(client));
}

/**
 * Adds an in-process admission plugin after those already registered (an add-on's stand-in for the webhook its
 * project ships); returns the function that removes it again.
 */
export function addAdmission(client: Client, plugin: AdmissionPlugin): () => void {
  return registryOf(client).addAdmission(plugin);
}

/**
 * Evicts a pod through the eviction subresource's rules, as `kubectl drain` and node autoscalers do: throws an
 * ApiError 429 when a PodDisruptionBudget does not allow it now, 404 when the pod is gone.
 */
export function evictPod(client: Client, namespace: string, name: string, opts: DeleteOptions = {}, dryRun = false): void {
  evict(registryOf(client), namespace, name, opts, dryRun);
}

/** Registers a source of external.metrics.k8s.io values; returns the function that removes it. */
export function addExternalMetrics(client: Client, source: ExternalMetricsSource): () => void {
  return registryOf(client).addExternalMetrics(source);
}

/** The values of an external metric from the first source that serves it, or undefined when none does. */
export function externalMetricValues(client: Client, namespace: string, metricName: string, labelSelector = ''): ExternalMetricValue[] | undefined {
  for (const s of registryOf(client).externalMetrics) {
    const v = s.values(namespace, metricName, labelSelector);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * One object's value of a custom metric (custom.metrics.k8s.io, `namespace` '' for root-scoped objects), as the
 * simulated adapter answers it; throws the adapter's 404 when the object has none.
 */
export function customMetricValue(client: Client, groupResource: string, namespace: string, name: string, metric: string): CustomMetricValue {
  return metricByName(registryOf(client), groupResource, namespace, name, metric);
}

/** The custom metric of every object the selector matches that has it; throws the adapter's 404 when none has. */
export function customMetricValues(client: Client, groupResource: string, namespace: string, selector: Selector, metric: string): CustomMetricValue[] {
  return metricBySelector(registryOf(client), groupResource, namespace, selector, metric);
}

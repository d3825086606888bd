// Server services in-process components use besides reads and writes (`client.services`): pod binding (the
// pods/binding subresource), eviction, the simulated and external metrics pipelines, the default StorageClass and the
// cluster's PKI.
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
import type { DeleteOptions, Registry } from '../registry/registry.js';

/** What a client offers besides reads and writes, over the registry view it acts through. */
export class ClientServices {
  constructor(private readonly reg: Registry) {}

  /**
   * Creates the pod's binding to `nodeName` (pods/binding), as the scheduler does: the bound pod, or a promise of it
   * when the store waits (etcd).
   */
  bindPod(namespace: string, name: string, nodeName: string): KObject | Promise<KObject> {
    return bind(this.reg, namespace, name, { metadata: {}, target: { kind: 'Node', name: nodeName } }, false);
  }

  /** What the metrics pipeline reports for a running pod's containers now (undefined when it has no metrics). */
  podUsageNow(pod: Pod): Array<{ name: string } & Usage> | undefined {
    return usage(this.reg, pod);
  }

  /** The StorageClass DefaultStorageClass admission would pick. */
  defaultStorageClass(): StorageClass | undefined {
    return defaultClass(this.reg);
  }

  /** The cluster's keys and CA (service account token signing, CSR signing). */
  security(): Security {
    return security(this.reg);
  }

  /**
   * Adds an in-process admission plugin after those already registered (an add-on's stand-in for the webhook its
   * project ships); returns the function that removes it again.
   */
  addAdmission(plugin: AdmissionPlugin): () => void {
    return this.reg.addAdmission(plugin);
  }

  /**
   * Evicts a pod through the eviction subresource's rules, as `kubectl drain` and node autoscalers do: throws an
   * ApiError 429 when a PodDisruptionBudget does not allow it now, 404 when the pod is gone (a promise that rejects
   * so when the store waits, etcd).
   */
  evictPod(namespace: string, name: string, opts: DeleteOptions = {}, dryRun = false): void | Promise<void> {
    return evict(this.reg, namespace, name, opts, dryRun);
  }

  /** Registers a source of external.metrics.k8s.io values; returns the function that removes it. */
  addExternalMetrics(source: ExternalMetricsSource): () => void {
    return this.reg.addExternalMetrics(source);
  }

  /** The values of an external metric from the first source that serves it, or undefined when none does. */
  externalMetricValues(namespace: string, metricName: string, labelSelector = ''): ExternalMetricValue[] | undefined {
    for (const s of this.reg.externalMetrics) {
      const v = s.values(namespace, metricName, labelSelector);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /**
   * One object's value of a custom metric (custom.metrics.k8s.io, `namespace` '' for root-scoped objects), as the
   * simulated adapter answers it; throws the adapter's 404 when the object has none.
   */
  customMetricValue(groupResource: string, namespace: string, name: string, metric: string): CustomMetricValue {
    return metricByName(this.reg, groupResource, namespace, name, metric);
  }

  /** The custom metric of every object the selector matches that has it; throws the adapter's 404 when none has. */
  customMetricValues(groupResource: string, namespace: string, selector: Selector, metric: string): CustomMetricValue[] {
    return metricBySelector(this.reg, groupResource, namespace, selector, metric);
  }
}

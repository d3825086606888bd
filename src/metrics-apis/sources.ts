// Where the metrics APIs' values come from: in-process sources register with the registry (KEDA's metrics adapter
// serves its scalers' values as external metrics), so the HPA and `kubectl get --raw` read one pipeline.

/** One item of an ExternalMetricValueList (external.metrics.k8s.io/v1beta1). */
export interface ExternalMetricValue {
  metricName: string;
  metricLabels?: Record<string, string>;
  /** RFC 3339. */
  timestamp: string;
  /** A quantity, e.g. `42` or `1500m`. */
  value: string;
}

export interface ExternalMetricsSource {
  /** Names of the metrics this source has values for in a namespace (what a metrics adapter lists). */
  metricNames(namespace: string): string[];
  /**
   * The values of `metricName` in `namespace` for a label selector (as given in the request, may be empty), or
   * undefined when this source does not serve that metric (the next source is asked). Throws an ApiError when the
   * metric is this source's but cannot be read now.
   */
  values(namespace: string, metricName: string, labelSelector: string): ExternalMetricValue[] | undefined;
}

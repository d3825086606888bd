// The not-found answers a metrics adapter built on custom-metrics-apiserver gives (404 NotFound Status), worded
// as its provider errors are.
import { ApiError } from '../machinery/errors.js';

/** `group.resource` as schema.GroupResource prints it (`pods`, `deployments.apps`, or '' for none). */
export const groupResource = (group: string, resource: string): string => (group ? `${resource}.${group}` : resource);

/** No such metric for a kind of object (the adapter knows no series for it). */
export const metricNotFound = (gr: string, metric: string) =>
  new ApiError(404, 'NotFound', `the server could not find the metric ${metric} for ${gr}`);

/** No value of the metric for one named object. */
export const metricNotFoundFor = (gr: string, metric: string, name: string) =>
  new ApiError(404, 'NotFound', `the server could not find the metric ${metric} for ${gr} ${name}`);

/**
 * No external metric of that name: prometheus-adapter names the group-resource `namespaces` in the default
 * namespace and nothing elsewhere, and the message keeps that quirk.
 */
export const externalMetricNotFound = (namespace: string, metric: string) => metricNotFound(namespace === 'default' ? 'namespaces' : '', metric);

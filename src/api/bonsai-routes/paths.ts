// The dashboard's read paths. Those that read objects authorize each request themselves, against the resources they
// reveal (`get` on the pod, `list` on each resource), so the request chain does not authorize them by URL. Every
// other Bonsai path (the history's bounds, the clock, any path added later) is a non-resource URL the chain
// authorizes as upstream authorizes /metrics: a ClusterRole grants it with `nonResourceURLs`.
export const schedulingPrefix = '/bonsai/v1/scheduling/';
export const historyPath = '/bonsai/v1/history';

/** The paths (no query; the router ignores one trailing slash) whose handlers authorize by resource. */
const selfAuthorizing = /^\/bonsai\/v1\/(?:history\/(?:state|changes)|scheduling\/namespaces\/[^/]+\/pods\/[^/]+)\/?$/;

/** True for a path (no query) whose handler authorizes by resource. */
export function authorizesItself(path: string): boolean {
  return selfAuthorizing.test(path);
}

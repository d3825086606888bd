// The dashboard's read paths. Their handlers authorize each request themselves, against the resources they read
// (`get` on the pod, `list` on each resource), so the request chain does not authorize them by URL.
export const schedulingPrefix = '/bonsai/v1/scheduling/';
export const historyPath = '/bonsai/v1/history';

/** True for a path (no query) whose handler authorizes by resource. */
export function authorizesItself(path: string): boolean {
  return path.startsWith(schedulingPrefix) || path === historyPath || path.startsWith(`${historyPath}/`);
}

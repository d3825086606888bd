// Which container a session reaches, and the errors the API server and the kubelet give when it cannot.
import type { Container, ContainerStatus, Pod } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';

export type Verb = 'exec' | 'attach' | 'portforward';

/** A failure before anything ran: `code` is the HTTP status; `kubelet` errors come from the node, not the API server. */
export interface TargetError {
  code: number;
  message: string;
  kubelet: boolean;
}

export type Target = { pod: Pod; container: Container; status: ContainerStatus | undefined } | { error: TargetError };

export function allContainers(pod: Pod): Container[] {
  return [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...((pod.spec?.ephemeralContainers ?? []) as Container[])];
}

function statusOf(pod: Pod, name: string): ContainerStatus | undefined {
  const s = pod.status;
  return [...(s?.containerStatuses ?? []), ...(s?.initContainerStatuses ?? []), ...(s?.ephemeralContainerStatuses ?? [])].find((c) => c.name === name);
}

/**
 * Checks a session's target as the API server (pod, container name, phase, node) and then the kubelet (the
 * container is running) do; `container` may be empty for port-forward.
 */
export function findTarget(client: Client, namespace: string, podName: string, container: string, verb: Verb): Target {
  const pod = client.get<Pod>('v1/pods', namespace, podName);
  if (!pod) return { error: { code: 404, message: `pods "${podName}" not found`, kubelet: false } };
  const containers = allContainers(pod);
  const c = verb === 'portforward' && !container ? containers[0] : containers.find((x) => x.name === container);
  if (!c) return { error: { code: 400, message: `container ${container} is not valid for pod ${podName}`, kubelet: false } };
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') {
    const what = verb === 'exec' ? 'cannot exec into a container' : verb === 'attach' ? 'cannot attach to a container' : 'cannot port-forward to a pod';
    return { error: { code: 400, message: `${what} in a completed pod; current phase is ${phase}`, kubelet: false } };
  }
  if (!pod.spec?.nodeName) return { error: { code: 400, message: `pod ${podName} does not have a host assigned`, kubelet: false } };
  const status = statusOf(pod, c.name);
  if (verb !== 'portforward' && !status?.state?.running) return { error: { code: 500, message: `container not found ("${c.name}")`, kubelet: true } };
  if (verb === 'portforward' && phase !== 'Running') return { error: { code: 500, message: `unable to do port forwarding: pod ${podName} is not running`, kubelet: true } };
  return { pod, container: c, status };
}

// Which probes knock on a port nothing listens on: a well-known server image listens on its one port (nginx on 80),
// so an HTTP or TCP probe on another port it does not declare is refused, as it would be in a real cluster.
import type { Container, Probe } from '../generated/k8s/core/v1.js';
import { imagePort } from './well-known-http.js';

/** The port an HTTP or TCP probe knocks on, a named port resolved through the container's ports. */
export function probePort(c: Container, p: Probe | undefined): number | undefined {
  const port = p?.httpGet?.port ?? p?.tcpSocket?.port;
  if (typeof port === 'number') return port;
  if (typeof port === 'string' && /^\d+$/.test(port)) return Number(port);
  return port === undefined ? undefined : c.ports?.find((x) => x.name === port)?.containerPort;
}

/**
 * Whether the probe knocks on a port nothing in the container listens on. Known only for a well-known server image
 * (nginx listens on 80): a probe on another port that the container does not declare is refused, as a real one
 * would be.
 */
export function probeRefused(c: Container, p: Probe | undefined): boolean {
  const port = probePort(c, p);
  const listens = imagePort(c.image ?? '');
  if (port === undefined || listens === undefined || port === listens) return false;
  return !c.ports?.some((x) => x.containerPort === port && (x.protocol ?? 'TCP') === 'TCP');
}

// Simulated probes: when a container counts as started and ready, when a failing liveness probe kills it, and the
// failure messages the kubelet records.
import type { Container, Probe } from '../generated/k8s/core/v1.js';
import type { ContainerPlan } from './container-plan.js';

export interface ProbeTimes {
  startedMs: number;
  /** undefined: never ready. */
  readyAtMs: number | undefined;
  /** First failing readiness probe to record (never-ready containers with a probe). */
  firstUnhealthyMs: number | undefined;
  readinessPeriodMs: number;
  /** First failing liveness probe and the kill that follows failureThreshold failures. */
  firstLivenessFailMs: number | undefined;
  livenessKillMs: number | undefined;
  livenessPeriodMs: number;
}

const period = (p: Probe | undefined) => (p?.periodSeconds || 10) * 1000;

export function probeTimes(c: Container, plan: ContainerPlan, startMs: number, hasReadiness: boolean): ProbeTimes {
  const startedMs = c.startupProbe ? startMs + (c.startupProbe.initialDelaySeconds ?? 0) * 1000 : startMs;
  const rp = c.readinessProbe;
  const readinessPeriodMs = period(rp);
  const firstProbe = Math.max(startedMs, startMs + (rp?.initialDelaySeconds ?? 0) * 1000);
  let readyAtMs: number | undefined;
  let firstUnhealthyMs: number | undefined;
  if (!hasReadiness) readyAtMs = undefined;
  else if (plan.neverReady) firstUnhealthyMs = rp ? firstProbe : undefined;
  else readyAtMs = (rp ? firstProbe + ((rp.successThreshold ?? 1) - 1) * readinessPeriodMs : startedMs) + plan.readyDelayMs;
  const lp = c.livenessProbe;
  const livenessPeriodMs = period(lp);
  let firstLivenessFailMs: number | undefined;
  let livenessKillMs: number | undefined;
  if (lp && plan.livenessFailAfterMs !== undefined) {
    firstLivenessFailMs = Math.max(startedMs, startMs + (lp.initialDelaySeconds ?? 0) * 1000, startMs + plan.livenessFailAfterMs);
    livenessKillMs = firstLivenessFailMs + ((lp.failureThreshold ?? 3) - 1) * livenessPeriodMs;
  }
  return { startedMs, readyAtMs, firstUnhealthyMs, readinessPeriodMs, firstLivenessFailMs, livenessKillMs, livenessPeriodMs };
}

/** The text after "Readiness probe failed: " / "Liveness probe failed: " (`refused`: nothing listens on the port). */
export function probeFailure(p: Probe | undefined, podIP: string, liveness: boolean, refused = false): string {
  if (p?.httpGet && refused) {
    const port = String(p.httpGet.port);
    const host = p.httpGet.host || podIP;
    const path = p.httpGet.path ?? '';
    return `Get "${(p.httpGet.scheme ?? 'HTTP').toLowerCase()}://${host}:${port}${path.startsWith('/') || path === '' ? path : `/${path}`}": dial tcp ${host}:${port}: connect: connection refused`;
  }
  if (p?.httpGet) return `HTTP probe failed with statuscode: ${liveness ? 500 : 503}`;
  if (p?.tcpSocket) return `dial tcp ${podIP}:${String(p.tcpSocket.port)}: connect: connection refused`;
  if (p?.grpc) return `timeout: failed to connect service "${podIP}:${p.grpc.port}" within 1s`;
  return '';
}

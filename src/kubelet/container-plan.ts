// What one run of a simulated container does: its output, how long it runs, how it ends. Built from the
// simulation annotations, what the container's command does (command-runner.ts) and the pod's restart policy.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import { quantityValue } from '../machinery/resources.js';
import { simAnnotation } from './annotations.js';
import type { ScriptLine, ScriptResult } from './command-runner.js';
import { wellKnownOutput } from './well-known-images.js';
import { probeRefused } from './probe-ports.js';
import type { KubeletTimings } from './types.js';

/** `ephemeral`: added by `kubectl debug` (pods/ephemeralcontainers); runs until stopped unless its command ends, never restarts. */
export type ContainerKind = 'init' | 'sidecar' | 'main' | 'ephemeral';

export interface ContainerPlan {
  lines: ScriptLine[];
  /** Time from start to exit; undefined: runs until stopped. */
  runMs: number | undefined;
  exitCode: number;
  reason: 'Completed' | 'Error' | 'OOMKilled';
  neverReady: boolean;
  /** Extra delay before the readiness probe passes. */
  readyDelayMs: number;
  /** When (from start) the liveness probe starts failing; undefined: never. */
  livenessFailAfterMs: number | undefined;
}

const oomAfterMs = 1000;

function seconds(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}

/** A downward-API `metadata.labels['k']` / `metadata.annotations['k']` field path's value. */
function metadataKey(pod: Pod, path: string): string | undefined {
  const m = path.match(/^metadata\.(labels|annotations)\['(.+)'\]$/);
  const map = m ? pod.metadata?.[m[1] as 'labels' | 'annotations'] : undefined;
  return map && Object.prototype.hasOwnProperty.call(map, m![2]) ? map[m![2]] : undefined;
}

/** The environment a container sees: PATH, HOSTNAME, its own env values, the kubernetes service variables. */
export function containerEnv(pod: Pod, c: Container): Record<string, string> {
  // Without a prototype: variable names are the pod's (`__proto__` or `constructor` are valid names).
  const env: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOSTNAME: pod.spec?.hostname ?? pod.metadata?.name ?? '',
  });
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => env[n] ?? m);
    else if (e.valueFrom?.fieldRef) {
      const path = e.valueFrom.fieldRef.fieldPath;
      const v = path === 'metadata.name' ? pod.metadata?.name : path === 'metadata.namespace' ? pod.metadata?.namespace
        : path === 'spec.nodeName' ? pod.spec?.nodeName : path === 'status.podIP' ? pod.status?.podIP
          : path === 'status.hostIP' ? pod.status?.hostIP : path === 'metadata.uid' ? pod.metadata?.uid : metadataKey(pod, path);
      if (v !== undefined) env[e.name] = v;
    }
  }
  Object.assign(env, {
    KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', KUBERNETES_SERVICE_PORT_HTTPS: '443',
    KUBERNETES_PORT: 'tcp://10.96.0.1:443', KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP_PROTO: 'tcp', KUBERNETES_PORT_443_TCP_PORT: '443', KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
    HOME: '/root',
  });
  return env;
}

/** `script`: what the container's command did when it ran in the shell (undefined: not a program the shell has). */
export function containerPlan(pod: Pod, c: Container, kind: ContainerKind, timings: KubeletTimings, startMs: number, script: ScriptResult | undefined): ContainerPlan {
  const obj = pod;
  const ann = (k: Parameters<typeof simAnnotation>[1]) => simAnnotation(obj, k, c.name);
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const longRunning = kind === 'sidecar' || kind === 'ephemeral' || (kind === 'main' && policy === 'Always');
  let runMs: number | undefined = script ? script.runMs : longRunning ? undefined : timings.defaultRunMs;
  let exitCode = script?.exitCode ?? 0;
  const runAnn = seconds(ann('runSeconds'));
  if (runAnn !== undefined) runMs = runAnn;
  const codeAnn = ann('exitCode');
  if (codeAnn !== undefined && /^\d+$/.test(codeAnn)) exitCode = Number(codeAnn) & 255;
  const crash = seconds(ann('crashAfterSeconds'));
  if (crash !== undefined && (runMs === undefined || crash < runMs)) {
    runMs = crash;
    exitCode = codeAnn !== undefined && /^\d+$/.test(codeAnn) && Number(codeAnn) !== 0 ? Number(codeAnn) & 255 : 1;
  }
  let reason: ContainerPlan['reason'] = exitCode === 0 ? 'Completed' : 'Error';
  const mem = ann('memoryUsage');
  const limit = (c.resources?.limits as Record<string, unknown> | undefined)?.memory;
  if (mem !== undefined && limit !== undefined && quantityValue(mem) > quantityValue(limit)) {
    runMs = Math.min(runMs ?? Infinity, oomAfterMs);
    exitCode = 137;
    reason = 'OOMKilled';
  }
  const known = wellKnownOutput(c.image ?? '', c.command, c.args, { hostname: pod.spec?.hostname ?? pod.metadata?.name ?? '', startMs, podIP: pod.status?.podIP });
  const lines: ScriptLine[] = known ? known.map((text) => ({ atMs: 0, text })) : script ? [...script.lines] : [];
  for (const text of (ann('logLines') ?? '').split('\n').filter((l) => l !== '')) lines.push({ atMs: 0, text });
  if (runMs !== undefined) for (const l of lines) l.atMs = Math.min(l.atMs, runMs);
  return {
    lines, runMs, exitCode, reason,
    // A probe on a port the container does not listen on fails as the annotations would make it.
    neverReady: ann('neverReady') === 'true' || probeRefused(c, c.readinessProbe),
    readyDelayMs: seconds(ann('readySeconds')) ?? 0,
    livenessFailAfterMs: seconds(ann('livenessFailAfterSeconds')) ?? (probeRefused(c, c.livenessProbe) ? 0 : undefined),
  };
}

/** How a program with effects on the API ends when it cannot do its work (image-effects.ts): its code and log. */
export interface ImageOutcome {
  exitCode: number;
  lines: string[];
}

/** `plan` ending as `outcome` says, after the default run time when the plan had none. */
export function withOutcome(plan: ContainerPlan, outcome: ImageOutcome, defaultRunMs: number): ContainerPlan {
  const runMs = plan.runMs ?? defaultRunMs;
  const code = outcome.exitCode & 255;
  return { ...plan, runMs, exitCode: code, reason: code === 0 ? 'Completed' : 'Error', lines: [...plan.lines, ...outcome.lines.map((text) => ({ atMs: runMs, text }))] };
}

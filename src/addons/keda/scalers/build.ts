// Building a ScaledObject's or ScaledJob's scalers from its triggers (pkg/scaling/scalers_builder.go): auth params
// from the trigger's TriggerAuthentication (secretTargetRef), then the scaler of the trigger's type; a type Bonsai
// cannot run is `no scaler found for type: <type>`, as upstream answers an unknown one.
import type { Client } from '../../../client/client.js';
import type { KObject } from '../../../machinery/types.js';
import { getOwn } from '../../../util/own.js';
import { stringMap, type ScalerConfig } from '../metadata.js';
import { secretsRef, triggerAuthsRef } from '../types.js';
import type { Trigger } from '../spec.js';
import { cronScaler } from './cron.js';
import { metricsApiScaler } from './metrics-api.js';
import { resourceScaler } from './resource.js';
import type { Scaler } from './scaler.js';
import { workloadScaler } from './workload.js';

/** Auth params from a TriggerAuthentication's secretTargetRef entries (a missing object or key gives nothing). */
export function resolveAuthParams(client: Client, namespace: string, trigger: Trigger): Map<string, string> {
  const out = new Map<string, string>();
  const ref = trigger.authenticationRef;
  if (!ref || !ref.name) return out;
  if (ref.kind && ref.kind !== 'TriggerAuthentication') {
    if (ref.kind === 'ClusterTriggerAuthentication') return out;
    throw new Error(`unknown trigger auth kind ${ref.kind}`);
  }
  const ta = client.get<KObject>(triggerAuthsRef, namespace, ref.name);
  const refs = (ta?.spec as { secretTargetRef?: unknown } | undefined)?.secretTargetRef;
  if (!Array.isArray(refs)) return out;
  for (const r of refs.slice(0, 64)) {
    const m = stringMap(r);
    const p = m.get('parameter'), name = m.get('name'), key = m.get('key');
    if (!p || !name || !key) continue;
    const secret = client.get<KObject>(secretsRef, namespace, name);
    const data = secret && getOwn((secret as { data?: object }).data ?? {}, key);
    if (typeof data === 'string') out.set(p, Buffer.from(data, 'base64').toString('utf8'));
  }
  return out;
}

export function buildScaler(cfg: ScalerConfig): Scaler {
  switch (cfg.triggerType) {
    case 'cron': return cronScaler(cfg);
    case 'kubernetes-workload': return workloadScaler(cfg);
    case 'cpu': return resourceScaler('cpu', cfg);
    case 'memory': return resourceScaler('memory', cfg);
    case 'metrics-api': return metricsApiScaler(cfg);
    default: throw new Error(`no scaler found for type: ${cfg.triggerType}`);
  }
}

export interface BuiltScaler {
  scaler: Scaler;
  trigger: Trigger;
  index: number;
}

/** All scalers of the triggers, or the first trigger's error (as upstream fails the whole build). */
export function buildScalers(client: Client, namespace: string, name: string, triggers: Trigger[]): BuiltScaler[] {
  return triggers.map((trigger, index) => {
    const cfg: ScalerConfig = {
      namespace, name, triggerIndex: index, triggerType: trigger.type, metricType: trigger.metricType,
      metadata: trigger.metadata, authParams: resolveAuthParams(client, namespace, trigger),
    };
    return { scaler: buildScaler(cfg), trigger, index };
  });
}

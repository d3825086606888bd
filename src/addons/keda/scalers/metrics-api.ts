// The metrics-api scaler: GETs a URL, reads a number at valueLocation of the JSON answer; active above
// activationTargetValue. Auth from the trigger's TriggerAuthentication (authModes bearer, apiKey, basic).
import { parseGoDuration } from '../../../util/duration.js';
import { floatParam, metricNameWithIndex, normalizeString, param, quantity, type ScalerConfig } from '../metadata.js';
import { defaultTimeoutMs, httpGet } from '../http-get.js';
import { valueFromJson } from '../value-location.js';
import { externalTargetType, target, type Scaler } from './scaler.js';

export interface MetricsApiMeta {
  url: string;
  valueLocation: string;
  targetValue: number;
  activationTargetValue: number;
  timeoutMs: number;
  /** Request headers and query parameters from the auth modes. */
  headers: Record<string, string>;
  query: Array<[string, string]>;
}

const authModeNames = ['apiKey', 'basic', 'tls', 'bearer', 'custom', 'oauth'];

function parseAuth(cfg: ScalerConfig, meta: MetricsApiMeta): void {
  const raw = param(cfg, 'authModes', { order: ['triggerMetadata', 'authParams'], aliases: ['authMode'], optional: true });
  if (raw === undefined) return;
  const modes = raw.split(',').map((s) => s.trim()).filter((s) => s);
  for (const m of modes) {
    if (!authModeNames.includes(m)) throw new Error(`parameter "authModes" value "${m}" must be one of [${authModeNames.join(' ')}]`);
  }
  if (modes.filter((m) => m === 'bearer' || m === 'basic' || m === 'oauth').length > 1) throw new Error(`parameter "authModes" value "${raw}" must contain only one of [bearer basic oauth]`);
  for (const m of modes) {
    if (m === 'bearer') {
      const token = param(cfg, 'bearerToken', { order: ['authParams'], aliases: ['token'], optional: true });
      if (!token) throw new Error('bearer token=<empty> is required when bearer auth is enabled');
      meta.headers.Authorization = `Bearer ${token}`;
    } else if (m === 'basic') {
      const user = param(cfg, 'username', { order: ['authParams'], optional: true });
      if (!user) throw new Error('username=<empty> is required when basic auth is enabled');
      const pass = param(cfg, 'password', { order: ['authParams'], optional: true }) ?? '';
      meta.headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    } else if (m === 'apiKey') {
      const key = param(cfg, 'apiKey', { order: ['triggerMetadata', 'authParams'], optional: true });
      if (!key) throw new Error('apiKey is required when apiKey auth is enabled');
      const method = param(cfg, 'method', { order: ['triggerMetadata', 'authParams'], default: 'header', enum: ['header', 'query'] });
      const keyName = param(cfg, 'keyParamName', { order: ['triggerMetadata', 'authParams'], optional: true });
      if (method === 'query') meta.query.push([keyName ?? 'api_key', key]);
      else meta.headers[keyName ?? 'X-API-KEY'] = key;
    } else {
      throw new Error(`auth mode ${m} is not supported by Bonsai's metrics-api scaler`);
    }
  }
}

function parseTimeout(cfg: ScalerConfig): number {
  const t = param(cfg, 'timeout', { optional: true });
  if (t === undefined) return defaultTimeoutMs;
  if (/^\d+$/.test(t)) return Math.min(Number(t), 60_000);
  const ms = parseGoDuration(t);
  if (ms === undefined) throw new Error(`unable to set param "timeout" value ${JSON.stringify(t)}: unable to parse duration value ${JSON.stringify(t)}: must be either a duration string (e.g. '30s', '5m') or a number of milliseconds`);
  if (ms < 0) throw new Error(`unable to set param "timeout" value ${JSON.stringify(t)}: duration cannot be negative: ${JSON.stringify(t)}`);
  return Math.min(ms, 60_000);
}

export function parseMetricsApiMeta(cfg: ScalerConfig): MetricsApiMeta {
  try {
    const targetValue = floatParam(cfg, 'targetValue', { optional: true });
    const activationTargetValue = floatParam(cfg, 'activationTargetValue', { default: '0' })!;
    const url = param(cfg, 'url')!;
    const format = param(cfg, 'format', { default: 'json', enum: ['prometheus', 'json', 'xml', 'yaml'] })!;
    const valueLocation = param(cfg, 'valueLocation')!;
    if (format !== 'json') throw new Error(`format ${format} not supported by Bonsai's metrics-api scaler (json is)`);
    const meta: MetricsApiMeta = { url, valueLocation, targetValue: targetValue ?? 0, activationTargetValue, timeoutMs: parseTimeout(cfg), headers: Object.create(null) as Record<string, string>, query: [] };
    parseAuth(cfg, meta);
    if (targetValue === undefined) throw new Error('no targetValue given in metadata');
    return meta;
  } catch (err) {
    throw new Error(`error parsing metrics API metadata: ${(err as Error).message}`);
  }
}

/** The URL the request goes to (query auth appended). */
export function requestUrl(meta: MetricsApiMeta): string {
  if (!meta.query.length) return meta.url;
  try {
    const u = new URL(meta.url);
    for (const [k, v] of meta.query) u.searchParams.set(k, v);
    return u.toString();
  } catch {
    return meta.url;
  }
}

export function metricsApiScaler(cfg: ScalerConfig): Scaler {
  let targetType: 'AverageValue' | 'Value';
  try {
    targetType = externalTargetType(cfg.metricType);
  } catch (err) {
    throw new Error(`error getting scaler metric type: ${(err as Error).message}`);
  }
  let meta: MetricsApiMeta;
  try {
    meta = parseMetricsApiMeta(cfg);
  } catch (err) {
    throw new Error(`error parsing metric API metadata: ${(err as Error).message}`);
  }
  const name = metricNameWithIndex(cfg.triggerIndex, normalizeString(`metric-api-${meta.valueLocation}`));
  return {
    type: 'metrics-api',
    metricSpec: () => ({ type: 'External', external: { metric: { name }, target: target(targetType, quantity(meta.targetValue)) } }),
    async read() {
      try {
        const res = await httpGet(requestUrl(meta), { ...meta.headers }, { timeoutMs: meta.timeoutMs });
        if (res.status !== 200) throw new Error(`${res.path}: api returned ${res.status}`);
        const value = valueFromJson(res.body, meta.valueLocation);
        return { value, active: value > meta.activationTargetValue };
      } catch (err) {
        throw new Error(`error requesting metrics endpoint: ${(err as Error).message}`);
      }
    },
  };
}

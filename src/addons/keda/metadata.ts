// Trigger metadata and auth params as KEDA's typed config reads them (pkg/scalers/scalersconfig): named parameters
// looked up in an order of sources, required unless optional or defaulted, numbers parsed as Go's JSON decoder
// would, with upstream's error texts. Keys come from clients: they live in Maps, never on plain objects.

/** Longest parameter value taken (a URL or a token fits; a megabyte of metadata does not reach a scaler). */
export const maxParamLength = 8192;

export type Source = 'triggerMetadata' | 'authParams';

export interface ScalerConfig {
  namespace: string;
  /** The ScaledObject's or ScaledJob's name. */
  name: string;
  triggerIndex: number;
  triggerType: string;
  /** trigger.metricType ('' when unset). */
  metricType: string;
  metadata: ReadonlyMap<string, string>;
  authParams: ReadonlyMap<string, string>;
}

/** A map of the string-valued own properties of a client object (non-strings are skipped, as the schema has them). */
export function stringMap(o: unknown): Map<string, string> {
  const m = new Map<string, string>();
  if (!o || typeof o !== 'object' || Array.isArray(o)) return m;
  for (const k of Object.keys(o)) {
    const v = Object.getOwnPropertyDescriptor(o, k)?.value;
    if (typeof v === 'string') m.set(k, v);
  }
  return m;
}

export interface ParamOpts {
  order?: Source[];
  optional?: boolean;
  default?: string;
  /** Other accepted names (`authModes;authMode`). */
  aliases?: string[];
  enum?: string[];
}

/** The parameter's value, its default, or undefined when optional; throws upstream's error when missing. */
export function param(cfg: ScalerConfig, name: string, opts: ParamOpts = {}): string | undefined {
  const order = opts.order ?? ['triggerMetadata'];
  const names = [name, ...(opts.aliases ?? [])];
  let value: string | undefined;
  for (const src of order) {
    const m = src === 'triggerMetadata' ? cfg.metadata : cfg.authParams;
    for (const n of names) {
      const v = m.get(n);
      if (v !== undefined && v !== '') {
        value = v;
        break;
      }
    }
    if (value !== undefined) break;
  }
  if (value === undefined) {
    if (opts.default !== undefined) return opts.default;
    if (opts.optional) return undefined;
    throw new Error(`missing required parameter "${names.join(';')}" in [${order.join(' ')}]`);
  }
  if (value.length > maxParamLength) throw new Error(`unable to set param "${name}": value is longer than ${maxParamLength} characters`);
  if (opts.enum && !opts.enum.includes(value)) throw new Error(`parameter "${name}" value "${value}" must be one of [${opts.enum.join(' ')}]`);
  return value;
}

const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** What Go's encoding/json says about a value that is not a number (the first offending character). */
function goNumberError(value: string, goType: string): string {
  const t = value.trim();
  if (t === '') return `unable to unmarshal to field type ${goType}: unexpected end of JSON input`;
  const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(t);
  const at = m ? m[0].length : 0;
  const c = t[at] ?? '';
  const where = at === 0 ? 'looking for beginning of value' : 'after top-level value';
  return `unable to unmarshal to field type ${goType}: invalid character '${c}' ${where}`;
}

function quoted(v: string): string {
  return JSON.stringify(v.length > 256 ? `${v.slice(0, 256)}...` : v);
}

/** A float64 parameter (Go JSON number syntax; the value may be quoted text of one, as typed config unquotes). */
export function floatParam(cfg: ScalerConfig, name: string, opts: ParamOpts = {}): number | undefined {
  const v = param(cfg, name, opts);
  if (v === undefined) return undefined;
  const t = v.trim();
  const n = Number(t);
  if (!jsonNumber.test(t)) throw new Error(`unable to set param "${name}" value ${quoted(v)}: ${goNumberError(v, 'float64')}`);
  if (!Number.isFinite(n)) throw new Error(`unable to set param "${name}" value ${quoted(v)}: unable to unmarshal to field type float64: json: cannot unmarshal number ${t} into Go value of type float64`);
  return n;
}

/** An int64 parameter. */
export function intParam(cfg: ScalerConfig, name: string, opts: ParamOpts = {}): number | undefined {
  const v = param(cfg, name, opts);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!/^-?\d+$/.test(t)) throw new Error(`unable to set param "${name}" value ${quoted(v)}: ${goNumberError(v, 'int64')}`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw new Error(`unable to set param "${name}" value ${quoted(v)}: unable to unmarshal to field type int64: json: cannot unmarshal number ${t} into Go value of type int64`);
  return n;
}

/** A bool parameter (strconv.ParseBool). */
export function boolParam(cfg: ScalerConfig, name: string, opts: ParamOpts = {}): boolean | undefined {
  const v = param(cfg, name, opts);
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new Error(`unable to set param "${name}" value ${quoted(v)}: unable to parse boolean value ${quoted(v)}: strconv.ParseBool: parsing ${quoted(v)}: invalid syntax`);
}

/** KEDA's NormalizeString: the characters a metric name cannot carry become `-`. */
export function normalizeString(s: string): string {
  return s.replace(/[/.:%()]/g, '-');
}

/** `s<index>-<name>`. */
export function metricNameWithIndex(index: number, name: string): string {
  return `s${index}-${name}`;
}

const suffixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/**
 * A value as the canonical DecimalSI quantity KEDA reports (three decimals, as its quantityFromFloat64): `5`, `2500m`,
 * `2k`; NaN, infinities and negatives are `0`.
 */
export function quantity(value: number): string {
  if (!Number.isFinite(value) || value < 0) return '0';
  const milli = Math.round(value * 1000);
  if (milli % 1000 !== 0) return `${milli}m`;
  let n = milli / 1000;
  let i = 0;
  while (n !== 0 && n % 1000 === 0 && i < suffixes.length - 1 && Number.isSafeInteger(n)) {
    n /= 1000;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

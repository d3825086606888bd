// startBonsai's options, checked before anything starts: a JavaScript caller (or a config file) can pass any value,
// and a wrong type must read as a clear error naming the option, not as a TypeError deep inside start-up.
import type { BonsaiOptions } from './bonsai-options.js';

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'function' | 'list';

/** Each option's expected type; a `list` also takes a comma-separated string, as the CLI's flags do. */
const expected: { [K in keyof Required<BonsaiOptions>]: Kind } = {
  host: 'string', port: 'number', data: 'string', logLevel: 'string', synchronous: 'string', clock: 'string', clockSpeed: 'number',
  kubernetesVersion: 'string', compactEveryMs: 'number', storage: 'string', apiOnly: 'boolean', eventTtlMs: 'number', cluster: 'object',
  controllers: 'list', addons: 'list', authorizationMode: 'list', auditLog: 'string', auditLevel: 'string', tls: 'boolean', tlsSans: 'list',
  tokenAuthFile: 'string', anonymousAuth: 'boolean', insecure: 'boolean', allowedHosts: 'list', corsAllowedOrigins: 'list',
  onListening: 'function', kubeconfig: 'string', ui: 'boolean', maxRequestsInflight: 'number', maxMutatingRequestsInflight: 'number',
  enablePriorityAndFairness: 'boolean', listLimits: 'object', shutdownGraceMs: 'number', kubelets: 'string', identity: 'string',
  simulatedWebhooks: 'string', execBudget: 'object',
};

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

function listOf(name: string, v: unknown): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v)) {
    const bad = v.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) throw new TypeError(`startBonsai: ${name}[${bad}] must be a string, not ${describe(v[bad])}`);
    return v as string[];
  }
  throw new TypeError(`startBonsai: ${name} must be a list of strings or a comma-separated string, not ${describe(v)}`);
}

/**
 * The options with each list in array form (`addons: 'jobset,keda'` → `['jobset', 'keda']`, `''` → none); throws a
 * TypeError naming the option for a value of the wrong type, and for an option startBonsai does not know.
 */
export function checkBonsaiOptions(opts: unknown): BonsaiOptions {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts)) throw new TypeError(`startBonsai: the options must be an object, not ${describe(opts)}`);
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(opts)) {
    if (!Object.prototype.hasOwnProperty.call(expected, name)) throw new TypeError(`startBonsai: unknown option "${name}"`);
    if (v === undefined) continue;
    const kind = expected[name as keyof BonsaiOptions];
    if (kind === 'list') out[name] = listOf(name, v);
    else if (kind === 'object' ? typeof v !== 'object' || v === null || Array.isArray(v) : typeof v !== kind) {
      throw new TypeError(`startBonsai: ${name} must be ${kind === 'object' ? 'an object' : `a ${kind}`}, not ${describe(v)}`);
    } else if (kind === 'number' && Number.isNaN(v)) throw new TypeError(`startBonsai: ${name} must be a number, not NaN`);
    else out[name] = v;
  }
  return out as BonsaiOptions;
}

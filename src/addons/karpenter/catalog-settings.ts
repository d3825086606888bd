// The catalog a cluster file supplies: `addons.karpenter.instanceTypes` replaces the built-in list. The section is
// client input, so every field is checked and every error names its path (`instanceTypes[3].offerings[0].price`).
//
//   addons:
//     karpenter:
//       instanceTypes:
//       - name: c-4x-amd64-linux        # required, a label value
//         cpu: "4"                       # required quantity
//         memory: 8Gi                    # required quantity
//         pods: 64                       # default 16 per CPU, at most 1024
//         gpus: 0                        # nvidia.com/gpu
//         gpuType: nvidia-a10g
//         arch: amd64                    # default amd64
//         os: linux                      # default linux
//         family: c                      # default: the name up to its first '-' or '.'
//         size: 4x                       # default: <cpu>x
//         resources: {example.com/fpga: "1"}   # other extended resources
//         offerings:                     # required, at least one
//         - {zone: zone-a, capacityType: spot, price: 0.07, available: true}
import { quantityValue } from '../../machinery/resources.js';
import { getOwn } from '../../util/own.js';
import { Catalog, builtinCatalog, withResources, type InstanceType, type Offering } from './catalog.js';

const maxTypes = 2000;
const maxOfferings = 256;
const maxExtra = 32;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
const resourceName = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export class CatalogSettingsError extends Error {}

const isRecord = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, msg: string): never {
  throw new CatalogSettingsError(`addons.karpenter.${path}: ${msg}`);
}

function str(o: object, key: string, path: string, required: boolean, pattern = labelValue): string | undefined {
  const v = getOwn(o, key);
  if (v === undefined || v === null) {
    if (required) fail(`${path}.${key}`, 'Required value');
    return undefined;
  }
  if (typeof v !== 'string') fail(`${path}.${key}`, `must be a string, not ${typeof v}`);
  if (!v || v.length > 63 || !pattern.test(v)) fail(`${path}.${key}`, `Invalid value: ${JSON.stringify(v.slice(0, 80))}: must be a valid label value`);
  return v;
}

function quantity(o: object, key: string, path: string, required: boolean): number | undefined {
  const v = getOwn(o, key);
  if (v === undefined || v === null) {
    if (required) fail(`${path}.${key}`, 'Required value');
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number') fail(`${path}.${key}`, 'must be a quantity (string or number)');
  const text = String(v);
  // quantityValue reads unparsable text as 0: a 0 is only taken when the text says 0.
  const n = text.length > 64 ? NaN : quantityValue(text);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !/^[+]?0*(\.0*)?([a-zA-Z]{0,2})$/.test(text))) fail(`${path}.${key}`, `Invalid value: ${JSON.stringify(text.slice(0, 40))}: must be a non-negative quantity`);
  return n;
}

function count(o: object, key: string, path: string, max: number): number | undefined {
  const v = quantity(o, key, path, false);
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v > max) fail(`${path}.${key}`, `must be a whole number between 0 and ${max}`);
  return v;
}

function offering(raw: unknown, path: string, zones: Set<string>): Offering {
  if (!isRecord(raw)) fail(path, 'must be a mapping');
  const zone = str(raw, 'zone', path, true)!;
  const capacityType = str(raw, 'capacityType', path, true)!;
  if (capacityType !== 'spot' && capacityType !== 'on-demand') fail(`${path}.capacityType`, `Unsupported value: "${capacityType}": supported values: "on-demand", "spot"`);
  const price = getOwn(raw, 'price');
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || price > 1e6) fail(`${path}.price`, 'must be a number of dollars per hour between 0 and 1000000');
  const available = getOwn(raw, 'available');
  if (available !== undefined && typeof available !== 'boolean') fail(`${path}.available`, 'must be a boolean');
  zones.add(zone);
  return { zone, capacityType, price, available: available !== false };
}

function instanceType(raw: unknown, path: string, zones: Set<string>): InstanceType {
  if (!isRecord(raw)) fail(path, 'must be a mapping');
  const name = str(raw, 'name', path, true)!;
  const cpu = quantity(raw, 'cpu', path, true)!;
  const memory = quantity(raw, 'memory', path, true)!;
  if (cpu <= 0 || cpu > 100_000) fail(`${path}.cpu`, 'must be more than 0 and at most 100000');
  if (memory <= 0 || memory > 2 ** 60) fail(`${path}.memory`, 'must be more than 0');
  const cpuMilli = Math.round(cpu * 1000);
  const pods = count(raw, 'pods', path, 100_000) ?? Math.min(16 * Math.max(1, Math.floor(cpu)), 1024);
  const gpus = count(raw, 'gpus', path, 1024) ?? 0;
  const gpuType = str(raw, 'gpuType', path, false);
  const arch = str(raw, 'arch', path, false) ?? 'amd64';
  const os = str(raw, 'os', path, false) ?? 'linux';
  const family = str(raw, 'family', path, false) ?? name.split(/[.-]/)[0]!;
  const size = str(raw, 'size', path, false) ?? `${cpu}x`;
  const extra: Record<string, string> = Object.create(null) as Record<string, string>;
  const res = getOwn(raw, 'resources');
  if (res !== undefined) {
    if (!isRecord(res)) fail(`${path}.resources`, 'must be a mapping of resource name to quantity');
    const keys = Object.keys(res);
    if (keys.length > maxExtra) fail(`${path}.resources`, `must have at most ${maxExtra} entries`);
    for (const k of keys) {
      if (k.length > 253 || !resourceName.test(k) || ['cpu', 'memory', 'pods', 'nvidia.com/gpu'].includes(k)) fail(`${path}.resources`, `Invalid value: ${JSON.stringify(k.slice(0, 80))}: must be an extended resource name (cpu, memory, pods and gpus have their own fields)`);
      const q = quantity(res, k, `${path}.resources`, true)!;
      extra[k] = String(q);
    }
  }
  const offs = getOwn(raw, 'offerings');
  if (!Array.isArray(offs) || !offs.length) fail(`${path}.offerings`, 'Required value: at least one offering');
  if (offs.length > maxOfferings) fail(`${path}.offerings`, `must have at most ${maxOfferings} items`);
  const offerings = offs.map((o, i) => offering(o, `${path}.offerings[${i}]`, zones));
  return withResources({ name, family, size, arch, os, cpuMilli, memoryBytes: Math.round(memory), pods, gpus, gpuType, offerings }, { ...extra });
}

/**
 * The catalog the add-on's settings describe: `instanceTypes` replaces the built-in list when present, else the
 * built-in catalog over `zones` (default zone-a, zone-b, zone-c). Throws CatalogSettingsError with a path.
 */
export function catalogFromSettings(settings: unknown): Catalog {
  if (settings === undefined || settings === null) return builtinCatalog();
  if (!isRecord(settings)) fail('', 'must be a mapping');
  const rawZones = getOwn(settings, 'zones');
  let zones: string[] | undefined;
  if (rawZones !== undefined) {
    if (!Array.isArray(rawZones) || !rawZones.length || rawZones.length > 64) fail('zones', 'must be a list of 1 to 64 zone names');
    zones = rawZones.map((z, i) => {
      if (typeof z !== 'string' || !z || z.length > 63 || !labelValue.test(z)) fail(`zones[${i}]`, 'must be a valid label value');
      return z;
    });
  }
  const list = getOwn(settings, 'instanceTypes');
  if (list === undefined || list === null) return builtinCatalog(zones);
  if (!Array.isArray(list)) fail('instanceTypes', 'must be a list');
  if (!list.length) fail('instanceTypes', 'Required value: at least one instance type');
  if (list.length > maxTypes) fail('instanceTypes', `must have at most ${maxTypes} items`);
  const seen = new Set<string>();
  const zoneSet = new Set<string>();
  const types = list.map((t, i) => {
    const it = instanceType(t, `instanceTypes[${i}]`, zoneSet);
    if (seen.has(it.name)) fail(`instanceTypes[${i}].name`, `Duplicate value: "${it.name}"`);
    seen.add(it.name);
    return it;
  });
  return new Catalog(types);
}

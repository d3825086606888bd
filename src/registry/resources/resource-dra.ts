// resource.k8s.io (Dynamic Resource Allocation) as kube-apiserver 1.35 serves it: DeviceClasses and ResourceSlices
// (cluster-scoped), ResourceClaims (status subresource) and ResourceClaimTemplates, stored as v1 and also served as
// v1beta2 and v1beta1 (dra-conversion.ts). Defaults as upstream's pkg/apis/resource/v1/defaults.go plus the zero
// values Go always serialises, so that a re-apply is a no-op; validation in ../validation/dra/.
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef, StrategyContext } from '../resource.js';
import { invalid } from '../../machinery/errors.js';
import { pathGetter } from '../../machinery/fields.js';
import { isRecord } from '../../machinery/types.js';
import type {
  DeviceClaim, DeviceClass, DeviceToleration, ResourceClaim, ResourceClaimTemplate, ResourceSlice,
} from '../../generated/k8s/resource/v1.js';
import { typedDefaults } from './typed.js';
import { draFromVersion, draToVersion, type DraKind } from './dra-conversion.js';
import { loadSelectorCel } from '../validation/dra/common.js';
import { adminAccessErrors, dropDeallocatedDeviceStatuses, validateResourceClaim, validateResourceClaimTemplate } from '../validation/dra/claim.js';
import { validateResourceSlice } from '../validation/dra/slice.js';
import { validateDeviceClass } from '../validation/dra/class.js';
import { nameAgePrinter, resourceClaimPrinter, resourceSlicePrinter } from '../tables/dra.js';

export const draGroup = 'resource.k8s.io';

/** An allocation mode defaults to ExactCount, and then a count to one. */
function defaultExact(r: { allocationMode?: string; count?: number; tolerations?: DeviceToleration[] }): void {
  r.allocationMode ||= 'ExactCount';
  if (r.allocationMode === 'ExactCount' && !r.count) r.count = 1;
  for (const t of r.tolerations ?? []) if (isRecord(t)) t.operator ||= 'Equal';
}

function defaultDeviceClaim(devices: DeviceClaim): void {
  for (const r of devices.requests ?? []) {
    if (!isRecord(r)) continue;
    if (isRecord(r.exactly)) defaultExact(r.exactly);
    for (const s of r.firstAvailable ?? []) if (isRecord(s)) defaultExact(s);
  }
}

const defaultClaim = (c: ResourceClaim) => {
  if (!isRecord(c.spec)) c.spec = {};
  if (!isRecord(c.spec.devices)) c.spec.devices = {};
  defaultDeviceClaim(c.spec.devices);
};

const defaultTemplate = (t: ResourceClaimTemplate) => {
  if (!isRecord(t.spec)) t.spec = { spec: {} };
  if (!isRecord(t.spec.spec)) t.spec.spec = {};
  if (!isRecord(t.spec.spec.devices)) t.spec.spec.devices = {};
  defaultDeviceClaim(t.spec.spec.devices);
};

const defaultClass = (c: DeviceClass) => {
  if (!isRecord(c.spec)) c.spec = {};
};

/** The pool's generation is a plain int64 (serialised even when 0). */
const defaultSlice = (s: ResourceSlice) => {
  if (isRecord(s.spec) && isRecord(s.spec.pool) && s.spec.pool.generation === undefined) s.spec.pool.generation = 0;
};

/** Admin access is for namespaces labelled for it: checked when a claim or a template is created (their specs are fixed). */
function checkAdminAccess(kind: 'ResourceClaim' | 'ResourceClaimTemplate') {
  return (obj: KObject, ctx: StrategyContext): void => {
    const spec = isRecord(obj.spec) ? obj.spec : {};
    const devices = kind === 'ResourceClaim' ? spec.devices : isRecord(spec.spec) ? spec.spec.devices : undefined;
    const path = kind === 'ResourceClaim' ? 'spec.devices' : 'spec.spec.devices';
    const ns = ctx.registry.getStored('core/namespaces', '', obj.metadata.namespace ?? '');
    const labels = isRecord(ns?.metadata.labels) ? ns.metadata.labels : {};
    const errs = adminAccessErrors(devices, path, labels);
    if (errs.length) throw invalid(kind, draGroup, obj.metadata.name ?? '', errs);
  };
}

/** What every resource.k8s.io kind shares: its versions and their conversion; the kinds with selectors load the CEL engine. */
function draDef(kind: DraKind, plural: string, namespaced: boolean): Pick<ResourceDef, 'group' | 'version' | 'versions' | 'kind' | 'plural' | 'singular' | 'namespaced' | 'toVersion' | 'fromVersion' | 'load'> {
  return {
    group: draGroup, version: 'v1', versions: ['v1', 'v1beta2', 'v1beta1'], kind, plural, singular: kind.toLowerCase(), namespaced,
    toVersion: (o: KObject, v: string) => draToVersion(kind, o, v), fromVersion: (o: KObject, v: string) => draFromVersion(kind, o, v),
    load: kind === 'ResourceSlice' ? undefined : loadSelectorCel,
  };
}

export const draResources: ResourceDef[] = [
  { ...draDef('DeviceClass', 'deviceclasses', false), generation: true, defaults: typedDefaults(defaultClass), validate: validateDeviceClass, table: nameAgePrinter },
  {
    ...draDef('ResourceClaim', 'resourceclaims', true), subresources: ['status'], emptyStatus: {}, prepareCreate: checkAdminAccess('ResourceClaim'),
    prepareStatusUpdate: (o, old) => dropDeallocatedDeviceStatuses(o, old),
    defaults: typedDefaults(defaultClaim), validate: validateResourceClaim, table: resourceClaimPrinter,
  },
  {
    ...draDef('ResourceClaimTemplate', 'resourceclaimtemplates', true), prepareCreate: checkAdminAccess('ResourceClaimTemplate'),
    defaults: typedDefaults(defaultTemplate), validate: validateResourceClaimTemplate, table: nameAgePrinter,
  },
  {
    ...draDef('ResourceSlice', 'resourceslices', false), generation: true,
    fieldSelectors: { 'spec.nodeName': pathGetter('spec.nodeName'), 'spec.driver': pathGetter('spec.driver') },
    defaults: typedDefaults(defaultSlice), validate: validateResourceSlice, table: resourceSlicePrinter,
  },
];

// resource.k8s.io versions as 1.35 converts them. v1 is stored; v1beta2 has the same shape. v1beta1 differs in two
// places: a device request carries the `exactly` fields inline (deviceClassName, selectors, allocationMode, count,
// adminAccess, tolerations, capacity), and a slice's device keeps everything but its name under `basic`.
import type { KObject } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';
import { setOwn } from '../../util/own.js';
import type { Device as DeviceV1, DeviceRequest as RequestV1, ExactDeviceRequest } from '../../generated/k8s/resource/v1.js';
import type { Device as DeviceV1beta1, DeviceRequest as RequestV1beta1 } from '../../generated/k8s/resource/v1beta1.js';

/** The fields of a v1 `exactly` that a v1beta1 request carries itself. */
const exactFields = ['deviceClassName', 'selectors', 'allocationMode', 'count', 'adminAccess', 'tolerations', 'capacity'] as const;

const set = (v: unknown) => v !== undefined && v !== null;

function requestToV1beta1(r: RequestV1): RequestV1beta1 {
  const { exactly, ...rest } = r;
  return { ...rest, ...(exactly ?? {}) } as RequestV1beta1;
}

function requestFromV1beta1(r: RequestV1beta1): RequestV1 {
  const flat = r as RequestV1beta1 & Record<string, unknown>;
  const out: RequestV1 & Record<string, unknown> = { name: r.name };
  for (const [k, v] of Object.entries(flat)) if (!(exactFields as readonly string[]).includes(k)) setOwn(out, k, v);
  // A request with any of the main fields, or with no alternatives (which v1beta1's defaults give a mode), is exact.
  if (exactFields.some((f) => set(flat[f])) || !r.firstAvailable?.length) {
    const exactly: Record<string, unknown> = {};
    for (const f of exactFields) if (set(flat[f])) exactly[f] = flat[f];
    out.exactly = exactly as ExactDeviceRequest;
  }
  return out;
}

const deviceToV1beta1 = ({ name, ...basic }: DeviceV1): DeviceV1beta1 => ({ name, basic });
const deviceFromV1beta1 = ({ name, basic }: DeviceV1beta1): DeviceV1 => ({ ...(basic ?? {}), name });

/** The device claim of a claim (spec.devices) or a template (spec.spec.devices), copied with its requests mapped. */
function mapClaimRequests(obj: KObject, template: boolean, map: (r: never) => unknown): KObject {
  const spec = obj.spec;
  if (!isRecord(spec)) return obj;
  const claimSpec = template ? spec.spec : spec;
  if (!isRecord(claimSpec) || !isRecord(claimSpec.devices) || !Array.isArray(claimSpec.devices.requests)) return obj;
  const devices = { ...claimSpec.devices, requests: claimSpec.devices.requests.map((r) => (isRecord(r) ? map(r as never) : r)) };
  const newClaimSpec = { ...claimSpec, devices };
  return { ...obj, spec: template ? { ...spec, spec: newClaimSpec } : newClaimSpec };
}

function mapSliceDevices(obj: KObject, map: (d: never) => unknown): KObject {
  const spec = obj.spec;
  if (!isRecord(spec) || !Array.isArray(spec.devices)) return obj;
  return { ...obj, spec: { ...spec, devices: spec.devices.map((d) => (isRecord(d) ? map(d as never) : d)) } };
}

export type DraKind = 'ResourceClaim' | 'ResourceClaimTemplate' | 'ResourceSlice' | 'DeviceClass';

/** A stored (v1) object as a served version. */
export function draToVersion(kind: DraKind, obj: KObject, version: string): KObject {
  if (version !== 'v1beta1') return obj;
  if (kind === 'ResourceSlice') return mapSliceDevices(obj, deviceToV1beta1);
  if (kind === 'DeviceClass') return obj;
  return mapClaimRequests(obj, kind === 'ResourceClaimTemplate', requestToV1beta1);
}

/** A request body of a served version as the storage version (v1). */
export function draFromVersion(kind: DraKind, obj: KObject, version: string): KObject {
  if (version !== 'v1beta1') return obj;
  if (kind === 'ResourceSlice') return mapSliceDevices(obj, deviceFromV1beta1);
  if (kind === 'DeviceClass') return obj;
  return mapClaimRequests(obj, kind === 'ResourceClaimTemplate', requestFromV1beta1);
}

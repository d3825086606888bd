// A claim's constraints across its devices, and device taints against a request's tolerations.
// matchAttribute: every device of the listed requests (all requests when none are listed) has the attribute, with
// one value; distinctAttribute: they all have it, with different values. Both are monotonic (a device that breaks
// one never helps later), so the search drops a candidate as soon as one says no.
import type { Device, DeviceAttribute, DeviceConstraint, DeviceTaint, DeviceToleration } from '../../generated/k8s/resource/v1.js';

/** An attribute by its fully qualified name (`domain/name`); the driver's own attributes may omit the domain. */
export function lookupAttribute(device: Device, driver: string, qualified: string): DeviceAttribute | undefined {
  const attrs = device.attributes ?? {};
  if (Object.prototype.hasOwnProperty.call(attrs, qualified)) return attrs[qualified];
  const slash = qualified.indexOf('/');
  if (slash < 0 || qualified.slice(0, slash) !== driver) return undefined;
  const id = qualified.slice(slash + 1);
  return Object.prototype.hasOwnProperty.call(attrs, id) ? attrs[id] : undefined;
}

/** An attribute's value with its type, comparable with `===` (versions compare as strings: semver is minimal). */
function attributeValue(a: DeviceAttribute): string | undefined {
  if (a.string !== undefined) return `s:${a.string}`;
  if (a.int !== undefined) return `i:${a.int}`;
  if (a.bool !== undefined) return `b:${a.bool}`;
  if (a.version !== undefined) return `v:${a.version}`;
  return undefined;
}

export class ClaimConstraint {
  private readonly requests: Set<string>;
  private readonly attribute: string;
  private readonly distinct: boolean;
  /** Values of the devices added so far, with how many devices hold each. */
  private readonly values = new Map<string, number>();

  constructor(c: DeviceConstraint) {
    this.requests = new Set(c.requests ?? []);
    this.distinct = !c.matchAttribute;
    this.attribute = c.matchAttribute ?? c.distinctAttribute ?? '';
  }

  private applies(base: string, full: string): boolean {
    return this.requests.size === 0 || this.requests.has(base) || this.requests.has(full);
  }

  /** Adds the device if it keeps the constraint; false (nothing recorded) when it would break it. */
  add(base: string, full: string, device: Device, driver: string): boolean {
    if (!this.applies(base, full)) return true;
    const a = lookupAttribute(device, driver, this.attribute);
    const v = a && attributeValue(a);
    if (v === undefined) return false;
    if (this.distinct ? this.values.has(v) : this.values.size > 0 && !this.values.has(v)) return false;
    this.values.set(v, (this.values.get(v) ?? 0) + 1);
    return true;
  }

  /** Undoes one successful `add` of the same device. */
  remove(base: string, full: string, device: Device, driver: string): void {
    if (!this.applies(base, full)) return;
    const a = lookupAttribute(device, driver, this.attribute);
    const v = a && attributeValue(a);
    if (v === undefined) return;
    const n = (this.values.get(v) ?? 0) - 1;
    if (n > 0) this.values.set(v, n);
    else this.values.delete(v);
  }
}

/** True when a toleration tolerates a device taint (operator Equal by default; an empty key or effect matches any). */
export function toleratesTaint(t: DeviceToleration, taint: DeviceTaint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator || 'Equal';
  if (op === 'Exists') return true;
  if (op !== 'Equal') return false;
  return (t.value ?? '') === (taint.value ?? '');
}

/** A taint with effect NoSchedule or NoExecute that no toleration of the request tolerates, if any. */
export function untoleratedTaint(device: Device, tolerations: readonly DeviceToleration[]): DeviceTaint | undefined {
  return (device.taints ?? []).find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    && !tolerations.some((t) => toleratesTaint(t, taint)));
}

// LeaderWorkerSet's validating webhook (kubernetes-sigs/lws `vleaderworkerset.kb.io`), in process: the name a DNS-1035
// label, replicas and size in range, the rolling-update numbers, the sub-group policy; on update, the sub-group size
// neither changed, added nor removed. Upstream's validator returns plain aggregated errors, which controller-runtime
// answers as 403 Forbidden. It validates what the mutating webhook has defaulted (rolling update 1/0/0 when unset).
import type { AdmissionPlugin } from '../../admission/types.js';
import { fieldInvalid, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { isValidPercent, nameIsDns1035Label } from '../../machinery/names.js';
import { aggregate, denied, validatingWebhook } from '../validating-webhook.js';
import { annotations as A, type IntOrString, type LeaderWorkerSet } from './types.js';

const maxInt32 = 2 ** 31 - 1;
const ruPath = 'spec.rolloutStrategy.rollingUpdateConfiguration';
const subGroupPath = 'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize';

const message = (e: FieldError) => `${e.field}: ${e.message}`;

function intOrPercentErrors(v: IntOrString, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof v === 'string') {
    for (const m of isValidPercent(v)) errs.push(fieldInvalid(path, v, m));
    const pct = isValidPercent(v).length ? undefined : Number(v.slice(0, -1));
    if (pct !== undefined && pct > 100) errs.push(fieldInvalid(path, v, 'must not be greater than 100%'));
  } else if (v < 0) errs.push(fieldInvalid(path, v, 'must be greater than or equal to 0'));
  return errs;
}

/** GetScaledValueFromIntOrPercent: undefined when a string is not a percentage. */
function scaledValue(v: IntOrString, total: number, roundUp: boolean): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) return undefined;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export function validateLws(obj: KObject): FieldError[] {
  const lws = obj as LeaderWorkerSet;
  const errs: FieldError[] = [];
  const name = lws.metadata.name ?? '';
  if (name) for (const m of nameIsDns1035Label(name, false)) errs.push(fieldInvalid('metadata.name', name, m));
  const replicas = lws.spec?.replicas ?? 1;
  if (replicas < 0) errs.push(fieldInvalid('spec.replicas', replicas, 'replicas must be equal or greater than 0'));
  if (replicas > 1_000_000) errs.push(fieldInvalid('spec.replicas', replicas, 'replicas must be equal or less than 1000000'));
  const tmpl = lws.spec?.leaderWorkerTemplate ?? {};
  const size = tmpl.size ?? 1;
  if (size < 1) errs.push(fieldInvalid('spec.leaderWorkerTemplate.size', size, 'size must be equal or greater than 1'));
  if (replicas * size > maxInt32) errs.push(fieldInvalid('spec.replicas', replicas, `the product of replicas and worker replicas must not exceed ${maxInt32}`));
  const ru = lws.spec?.rolloutStrategy?.rollingUpdateConfiguration ?? { maxUnavailable: 1, maxSurge: 0, partition: 0 };
  const maxUnavailable = ru.maxUnavailable ?? 1;
  const maxSurge = ru.maxSurge ?? 0;
  errs.push(...intOrPercentErrors(maxUnavailable, `${ruPath}.maxUnavailable`), ...intOrPercentErrors(maxSurge, `${ruPath}.maxSurge`));
  if ((ru.partition ?? 0) < 0) errs.push(fieldInvalid(`${ruPath}.partition`, ru.partition, 'must be greater than or equal to 0'));
  const unavailable = scaledValue(maxUnavailable, replicas, false);
  if (unavailable === undefined) errs.push(fieldInvalid(`${ruPath}.maxUnavailable`, maxUnavailable, 'invalid value'));
  const surge = scaledValue(maxSurge, replicas, true);
  if (surge === undefined) errs.push(fieldInvalid(`${ruPath}.maxSurge`, maxSurge, 'invalid value'));
  if ((unavailable ?? 0) === 0 && (surge ?? 0) === 0 && replicas !== 0) errs.push(fieldInvalid(`${ruPath}.maxUnavailable`, maxUnavailable, 'must not be 0 when `maxSurge` is 0'));
  const sub = tmpl.subGroupPolicy;
  if (sub) {
    const subSize = sub.subGroupSize ?? 0;
    if (subSize < 1) errs.push(fieldInvalid(subGroupPath, subSize, 'subGroupSize must be equal or greater than 1'));
    else {
      if (size % subSize !== 0 && (size - 1) % subSize !== 0) errs.push(fieldInvalid(subGroupPath, subSize, 'size or size - 1 must be divisible by subGroupSize'));
      if (size < subSize) errs.push(fieldInvalid(subGroupPath, subSize, 'subGroupSize cannot be larger than size'));
      if (sub.subGroupPolicyType === 'LeaderExcluded' && (size - 1) % subSize !== 0) errs.push(fieldInvalid(subGroupPath, subSize, 'size-1 must be divisible by subGroupSize when using LeaderExcluded'));
    }
  } else {
    const anns = lws.metadata.annotations ?? {};
    if (Object.hasOwn(anns, A.subGroupExclusiveTopology)) {
      errs.push(fieldInvalid(`metadata.annotations.${A.subGroupExclusiveTopology}`, anns[A.subGroupExclusiveTopology], 'cannot have subgroup-exclusive-topology without subGroupSize set'));
    }
  }
  return errs;
}

export function validateLwsUpdate(obj: KObject, oldObj: KObject): FieldError[] {
  const errs = validateLws(obj);
  const next = (obj as LeaderWorkerSet).spec?.leaderWorkerTemplate?.subGroupPolicy;
  const prev = (oldObj as LeaderWorkerSet).spec?.leaderWorkerTemplate?.subGroupPolicy;
  if (next && prev && next.subGroupSize !== prev.subGroupSize) errs.push(fieldInvalid(subGroupPath, next.subGroupSize ?? null, 'field is immutable'));
  if (next && !prev) errs.push(fieldInvalid(subGroupPath, next.subGroupSize ?? null, 'cannot enable subGroupSize after the lws is already created'));
  if (!next && prev) errs.push(fieldInvalid(subGroupPath, prev.subGroupSize ?? null, 'cannot remove subGroupSize after enabled'));
  return errs;
}

export function lwsWebhook(): AdmissionPlugin {
  return validatingWebhook({
    name: 'vleaderworkerset.kb.io', group: 'leaderworkerset.x-k8s.io', plural: 'leaderworkersets',
    validate(obj, old) {
      const errs = old ? validateLwsUpdate(obj, old) : validateLws(obj);
      return errs.length ? denied(aggregate(errs.map(message))) : undefined;
    },
  });
}

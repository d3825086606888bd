// Setting a condition in a status list the way upstream controllers do: lastTransitionTime moves only when the
// status changes; lastUpdateTime (where the type has one) moves on every change of reason or message.
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string;
  [field: string]: unknown;
}

export function getCondition<C extends Condition>(conds: readonly C[] | undefined, type: string): C | undefined {
  return conds?.find((c) => c.type === type);
}

/**
 * Returns `conds` with `next` set. `now` is an RFC3339 time. With `withUpdateTime`, the condition carries
 * lastUpdateTime (Deployment, HPA-style); otherwise only lastTransitionTime.
 */
export function setCondition<C extends Condition>(conds: readonly C[] | undefined, next: C, now: string, withUpdateTime = false): C[] {
  const list = [...(conds ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) return list;
  const c: C = {
    ...next,
    ...(withUpdateTime ? { lastUpdateTime: now } : {}),
    lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime ?? now : now,
  };
  if (i >= 0) list[i] = c;
  else list.push(c);
  return list;
}

export function removeCondition<C extends Condition>(conds: readonly C[] | undefined, type: string): C[] {
  return (conds ?? []).filter((c) => c.type !== type);
}

// What a node's taints do, as the node panel tells a class: each taint whole; for a NoExecute taint the pods on the
// node it evicts (those that do not tolerate it: now; those that tolerate it for tolerationSeconds: when), read
// with the taint eviction controller's own rule (src/machinery/conditions.ts); pods that tolerate it forever stay
// unlisted. For NoSchedule and PreferNoSchedule, a line on what the taint keeps off.
import { noExecuteToleranceMs } from '../../src/machinery/conditions.js';
import { shortName } from './cluster-map.js';
import { localTime, simNow, useClock } from './sim-clock.js';
import { taintText, type PodView, type TaintView } from './model.js';

interface Eviction {
  pod: PodView;
  /** Simulated ms when it is due; 0 for now; NaN when the taint has no timeAdded to count from. */
  at: number;
  afterMs: number;
}

/**
 * The pods a NoExecute taint evicts. The controller counts tolerationSeconds from when it found the pod tainted:
 * the taint's timeAdded, or the pod's creation when it came later.
 */
export function evictions(taint: TaintView, pods: readonly PodView[]): Eviction[] {
  const out: Eviction[] = [];
  for (const pod of pods) {
    const afterMs = noExecuteToleranceMs(taint, pod.tolerations);
    if (afterMs < 0) continue;
    const from = Number.isNaN(pod.created) ? taint.added : Math.max(taint.added, pod.created);
    out.push({ pod, afterMs, at: afterMs === 0 ? 0 : from + afterMs });
  }
  return out.sort((a, b) => a.afterMs - b.afterMs || (a.pod.key < b.pod.key ? -1 : 1));
}

const seconds = (ms: number) => `${Math.ceil(ms / 1000)}s`;

/** `now` undefined: a past revision (time travel), where no countdown applies. */
function when(e: Eviction, now: number | undefined): string {
  if (e.pod.deleting) return 'being evicted: terminating';
  if (e.at === 0) return 'being evicted now (does not tolerate it)';
  if (Number.isNaN(e.at) || now === undefined) return `evicted ${seconds(e.afterMs)} after the taint was added (tolerationSeconds)`;
  if (e.at <= now) return `being evicted now (its ${seconds(e.afterMs)} are up)`;
  return `evicted in ${seconds(e.at - now)}, at ${localTime(e.at, false)} (tolerates it for ${seconds(e.afterMs)})`;
}

function NoExecute(props: { taint: TaintView; pods: readonly PodView[]; live: boolean }) {
  const list = evictions(props.taint, props.pods);
  // Re-rendered every second while a countdown shows.
  useClock(props.live && list.some((e) => e.at > 0) ? 1000 : 60_000);
  const now = props.live ? simNow() : undefined;
  return (
    <>
      {' '}evicts the pods that do not tolerate it, and keeps new ones off.{' '}
      {list.length ? 'Evicts here:' : 'Every pod here tolerates it for good.'}
      {list.length ? (
        <ul class="evicts">
          {list.map((e) => <li data-evicts={e.pod.key} data-when={e.at === 0 || e.pod.deleting ? 'now' : 'later'}><b>{shortName(e.pod)}</b> {when(e, now)}</li>)}
        </ul>
      ) : null}
    </>
  );
}

const keepsOff: Record<string, string> = {
  NoSchedule: ' keeps new pods that do not tolerate it off this node; pods already here stay.',
  PreferNoSchedule: ' the scheduler places pods that do not tolerate it elsewhere when it can; nothing is evicted.',
};

/** `live` false for a past revision: what each taint evicts, without a countdown. */
export function Taints(props: { taints: readonly TaintView[]; pods: readonly PodView[]; live: boolean }) {
  if (!props.taints.length) return null;
  return (
    <div class="taints">Taints:
      <ul>
        {props.taints.map((t) => {
          const text = taintText(t);
          return (
            <li data-taint={text} data-effect={t.effect}>
              <span class="taint">{text}</span>
              {t.effect === 'NoExecute' ? <NoExecute taint={t} pods={props.pods} live={props.live} /> : keepsOff[t.effect] ?? ''}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

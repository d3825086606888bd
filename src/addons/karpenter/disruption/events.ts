// The disruption controller's events, with upstream's reasons and texts (karpenter v1 disruption/events), published
// through the client's event recorder with upstream's de-duplication (a repeat within the window is dropped).
import type { Referable } from '../../../machinery/types.js';
import type { EventRecorder } from '../../../client/event-recorder.js';
import type { Clock } from '../../../util/clock.js';

const defaultDedupeMs = 2 * 60_000;

/** Capitalises the first letter, as upstream's pretty.Sentence does for a blocked reason. */
export const sentence = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** Title case per word (`underutilized/delete` → `Underutilized/Delete`), as upstream's cases.Title. */
export const title = (s: string): string => s.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());

export class DisruptionEvents {
  private readonly seen = new Map<string, number>();
  constructor(private readonly recorder: EventRecorder, private readonly clock: Clock) {}

  private publish(obj: Referable | undefined, reason: string, message: string, dedupeMs = defaultDedupeMs, type: 'Normal' | 'Warning' = 'Normal'): void {
    if (!obj) return;
    const key = `${obj.metadata.uid ?? obj.metadata.name}\u0000${reason}\u0000${message}`;
    const now = this.clock.nowMs();
    const at = this.seen.get(key);
    if (at !== undefined && now - at < dedupeMs) return;
    this.seen.delete(key);
    this.seen.set(key, now);
    if (this.seen.size > 8192) this.seen.delete(this.seen.keys().next().value as string);
    this.recorder.event(obj, type, reason, message);
  }

  blocked(node: Referable | undefined, claim: Referable | undefined, message: string): void {
    this.publish(node, 'DisruptionBlocked', message);
    this.publish(claim, 'DisruptionBlocked', message);
  }

  unconsolidatable(node: Referable | undefined, claim: Referable | undefined, message: string): void {
    this.publish(node, 'Unconsolidatable', message, 15 * 60_000);
    this.publish(claim, 'Unconsolidatable', message, 15 * 60_000);
  }

  poolBlocked(pool: Referable, reason?: string): void {
    const msg = reason ? `No allowed disruptions for disruption reason ${reason} due to blocking budget` : 'No allowed disruptions due to blocking budget';
    this.publish(pool, 'DisruptionBlocked', msg, 60_000);
  }

  launching(claim: Referable, reason: string): void {
    this.publish(claim, 'DisruptionLaunching', `Launching NodeClaim: ${title(reason)}`);
  }

  waitingReadiness(claim: Referable): void {
    this.publish(claim, 'DisruptionWaitingReadiness', 'Waiting on readiness to continue disruption');
  }

  terminating(node: Referable | undefined, claim: Referable, reason: string): void {
    this.publish(node, 'DisruptionTerminating', `Disrupting Node: ${title(reason)}`, 0);
    this.publish(claim, 'DisruptionTerminating', `Disrupting NodeClaim: ${title(reason)}`, 0);
  }

  /** Bonsai's story event (issue item 5): why a node goes and what it saves. */
  consolidating(node: Referable | undefined, claim: Referable, message: string): void {
    this.publish(node, 'Consolidating', message, 0);
    this.publish(claim, 'Consolidating', message, 0);
  }
}

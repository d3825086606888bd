// VPA status conditions as upstream keeps them: one per type, sorted by type, lastTransitionTime moving only when the
// status does.
import { rfc3339 } from '../../util/clock.js';
import type { VpaCondition } from './types.js';

export class Conditions {
  private readonly byType = new Map<string, VpaCondition>();

  constructor(existing: unknown, private readonly now: Date) {
    if (!Array.isArray(existing)) return;
    for (const c of existing.slice(0, 32)) {
      if (c && typeof c === 'object' && typeof (c as VpaCondition).type === 'string') this.byType.set((c as VpaCondition).type, c as VpaCondition);
    }
  }

  set(type: string, status: boolean, reason = '', message = ''): void {
    const old = this.byType.get(type);
    const s = status ? 'True' : 'False';
    const c: VpaCondition = { type, status: s, lastTransitionTime: old && old.status === s && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(this.now) };
    if (reason) c.reason = reason;
    if (message) c.message = message;
    this.byType.set(type, c);
  }

  delete(type: string): void {
    this.byType.delete(type);
  }

  active(type: string): boolean {
    return this.byType.get(type)?.status === 'True';
  }

  list(): VpaCondition[] {
    return [...this.byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
}

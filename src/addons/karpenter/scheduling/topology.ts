// Hard topology spread (DoNotSchedule) over zones and hostnames, and required pod anti-affinity on hostnames, as
// the provisioning simulation needs them: counts of matching pods per domain, kept up to date as pods are placed.
import type { Pod } from '../../../generated/k8s/core/v1.js';
import type { LabelSelector } from '../../../generated/k8s/meta/v1.js';
import { labelSelectorMatches } from '../../../machinery/labels.js';
import { getOwn } from '../../../util/own.js';
import { labels as wk } from '../types.js';
import { allows, type Requirements } from './requirements.js';
import type { SimNode } from './types.js';

export interface Spread {
  sig: string;
  key: string;
  maxSkew: number;
  namespace: string;
  selector: LabelSelector | undefined;
}

const maxConstraints = 8;

/** A pod's hard spread constraints over zone or hostname. */
export function spreadsOf(pod: Pod): Spread[] {
  const ns = pod.metadata?.namespace ?? '';
  const out: Spread[] = [];
  for (const c of (pod.spec?.topologySpreadConstraints ?? []).slice(0, maxConstraints)) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule' || (c.topologyKey !== wk.zone && c.topologyKey !== wk.hostname)) continue;
    out.push({ sig: `${ns}\u0000${c.topologyKey}\u0000${JSON.stringify(c.labelSelector ?? null)}`, key: c.topologyKey, maxSkew: Math.max(1, c.maxSkew ?? 1), namespace: ns, selector: c.labelSelector });
  }
  return out;
}

/** The selectors of a pod's required anti-affinity terms over hostname (same namespace unless listed). */
export function hostAntiAffinity(pod: Pod): Array<{ namespaces: string[]; selector: LabelSelector | undefined }> {
  const terms = pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  return terms.filter((t) => t.topologyKey === wk.hostname).slice(0, maxConstraints)
    .map((t) => ({ namespaces: t.namespaces?.length ? t.namespaces : [pod.metadata?.namespace ?? ''], selector: t.labelSelector }));
}

export function antiAffinityAllows(pod: Pod, others: readonly Pod[]): boolean {
  const mine = hostAntiAffinity(pod);
  if (!mine.length) return true;
  for (const o of others) {
    for (const t of mine) {
      if (t.namespaces.includes(o.metadata?.namespace ?? '') && t.selector && labelSelectorMatches(t.selector, o.metadata?.labels ?? {})) return false;
    }
  }
  return true;
}

export class Topology {
  private readonly counts = new Map<string, { spread: Spread; byDomain: Map<string, number> }>();
  private readonly placed: Array<{ pod: Pod; zone: string | undefined; host: string }> = [];

  constructor(private readonly nodes: readonly SimNode[], readonly zones: readonly string[]) {}

  private entry(s: Spread): Map<string, number> {
    let e = this.counts.get(s.sig);
    if (!e) {
      const byDomain = new Map<string, number>();
      for (const n of this.nodes) {
        const domain = s.key === wk.hostname ? n.name : (getOwn(n.labels, wk.zone) as string | undefined);
        if (domain === undefined) continue;
        let c = byDomain.get(domain) ?? 0;
        for (const p of n.pods) if (this.matches(s, p)) c++;
        byDomain.set(domain, c);
      }
      for (const p of this.placed) {
        const d = s.key === wk.hostname ? p.host : p.zone;
        if (d !== undefined && this.matches(s, p.pod)) byDomain.set(d, (byDomain.get(d) ?? 0) + 1);
      }
      this.counts.set(s.sig, (e = { spread: s, byDomain }));
    }
    return e.byDomain;
  }

  private matches(s: Spread, p: Pod): boolean {
    return (p.metadata?.namespace ?? '') === s.namespace && !!s.selector && labelSelectorMatches(s.selector, p.metadata?.labels ?? {});
  }

  /** The zone domains a pod's requirements allow, and the lowest count among them. */
  private zoneMin(s: Spread, reqs: Requirements): number {
    const counts = this.entry(s);
    const zr = reqs.get(wk.zone);
    let min = Infinity;
    for (const z of this.zones) if (!zr || allows(zr, z)) min = Math.min(min, counts.get(z) ?? 0);
    return min === Infinity ? 0 : min;
  }

  /** Whether one more matching pod in `zone` / on `host` keeps every spread within its skew. */
  allows(spreads: readonly Spread[], reqs: Requirements, zone: string | undefined, host: string, hostIsNew: boolean): boolean {
    for (const s of spreads) {
      const counts = this.entry(s);
      if (s.key === wk.hostname) {
        const here = hostIsNew ? 0 : counts.get(host) ?? 0;
        if (here + 1 > s.maxSkew) return false; // a new node (count 0) is always a possible domain
      } else if (zone !== undefined && (counts.get(zone) ?? 0) + 1 - this.zoneMin(s, reqs) > s.maxSkew) {
        return false;
      }
    }
    return true;
  }

  /** Among `candidates`, the zone where one more pod keeps the zone spreads within skew, fewest pods first. */
  pickZone(spreads: readonly Spread[], reqs: Requirements, candidates: readonly string[]): string | undefined {
    const zoneSpreads = spreads.filter((s) => s.key === wk.zone);
    let best: string | undefined;
    let bestCount = Infinity;
    for (const z of candidates) {
      if (!this.allows(zoneSpreads, reqs, z, '', true)) continue;
      const c = zoneSpreads.reduce((acc, s) => acc + (this.entry(s).get(z) ?? 0), 0);
      if (c < bestCount) [best, bestCount] = [z, c];
    }
    return best;
  }

  record(pod: Pod, zone: string | undefined, host: string): void {
    this.placed.push({ pod, zone, host });
    for (const { spread, byDomain } of this.counts.values()) {
      if (!this.matches(spread, pod)) continue;
      const d = spread.key === wk.hostname ? host : zone;
      if (d !== undefined) byDomain.set(d, (byDomain.get(d) ?? 0) + 1);
    }
  }
}

// The SandboxClaim controller, as agent-sandbox's: a claim gets one Sandbox owned by it. It first takes over a Ready
// sandbox of a warm pool for the claim's template (the pool's label and ownerReference go, the claim becomes the
// controller, the sandbox keeps its name and so its pod), else creates a Sandbox named after the claim from the
// template. The claim reports the sandbox's name and pod IPs and mirrors its Ready (and Finished) condition.
// v1alpha1 claims name a template (`sandboxTemplateRef`, `warmpool`: none/default/<pool>); v1beta1 ones a pool.
import type { Client } from '../../client/client.js';
import { ApiError } from '../../machinery/errors.js';
import { defineController } from '../../controllers/runtime/index.js';
import { rfc3339, type Clock } from '../../util/clock.js';
import { controllerOf, labels as lbl, nameHash, ownerReference, ownership, removeCondition, sandboxRef, setCondition, type Condition, type Sandbox } from './sandbox-types.js';
import {
  claimRef, isReady, poolRef, specFromTemplate, templateRef, type SandboxClaim, type SandboxTemplate, type SandboxWarmPool,
} from './sandbox-extensions-types.js';
import { keyFor, keyOf, splitKey } from '../../machinery/object-key.js';

const notFound = (e: unknown) => e instanceof ApiError && e.code === 404;

class ClaimError extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

/** The claims still waiting for a sandbox in a namespace. */
const waitingClaims = (client: Client, ns: string): string[] =>
  client.list<SandboxClaim>(claimRef, ns).filter((cl) => !cl.status?.sandbox?.name).map(keyOf);

export const claimController = defineController({
  name: 'sandboxclaim',
  for: claimRef,
  watches: [
    {
      resource: sandboxRef,
      map: (c, { client }) => {
        const ref = controllerOf(c.object);
        if (ref?.kind === 'SandboxClaim') return [keyFor(c.object.metadata.namespace, ref.name)];
        // A pool sandbox turning Ready may be what a waiting claim needs.
        if (ref?.kind === 'SandboxWarmPool' && isReady(c.object as Sandbox)) return waitingClaims(client, c.object.metadata.namespace ?? '');
        return [];
      },
    },
    { resource: templateRef, map: (c, { client }) => waitingClaims(client, c.object.metadata.namespace ?? '') },
  ],
  setup: ({ client, clock }) => new ClaimController(client, clock),
});

class ClaimController {
  constructor(private readonly client: Client, private readonly clock: Clock) {}

  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    const claim = this.client.get<SandboxClaim>(claimRef, ns, name);
    if (!claim || claim.metadata.deletionTimestamp) return;
    let sb: Sandbox | undefined;
    let err: unknown;
    try {
      sb = this.findOwned(claim) ?? (await this.adopt(claim)) ?? (await this.create(claim));
    } catch (e) {
      err = e;
    }
    const conditions: Condition[] = (claim.status?.conditions ?? []).map((c) => ({ ...c }));
    const now = rfc3339(this.clock.now());
    setCondition(conditions, readyCondition(claim, sb, err), now);
    const finished = sb?.status?.conditions?.find((c) => c.type === 'Finished');
    if (finished) setCondition(conditions, { ...finished }, now);
    else removeCondition(conditions, 'Finished');
    const status: NonNullable<SandboxClaim['status']> = { ...(claim.status ?? {}), conditions };
    if (sb) status.sandbox = { name: sb.metadata.name, ...(sb.status?.podIPs?.length ? { podIPs: [...sb.status.podIPs] } : {}) };
    if (JSON.stringify(claim.status ?? {}) !== JSON.stringify(status)) {
      try {
        await this.client.guaranteedUpdate(claimRef, ns, name, (cur) => ({ ...cur, status }), { subresource: 'status' });
      } catch (e) {
        if (!notFound(e)) throw e;
      }
    }
    if (err && !(err instanceof ClaimError)) throw err;
  }

  private findOwned(claim: SandboxClaim): Sandbox | undefined {
    const ns = claim.metadata.namespace ?? '';
    for (const n of [claim.status?.sandbox?.name, claim.metadata.name]) {
      const sb = n ? this.client.get<Sandbox>(sandboxRef, ns, n) : undefined;
      if (sb && ownership(sb, claim) === 'owned') return sb;
    }
    return undefined;
  }

  /** The pools a claim may take a sandbox from, and the template it stands for. */
  private source(claim: SandboxClaim): { template: string; pools: SandboxWarmPool[] } {
    const ns = claim.metadata.namespace ?? '';
    const spec = claim.spec ?? {};
    if (spec.warmPoolRef?.name) {
      const pool = this.client.get<SandboxWarmPool>(poolRef, ns, spec.warmPoolRef.name);
      if (!pool) throw new ClaimError('WarmPoolNotFound', `SandboxWarmPool "${spec.warmPoolRef.name}" not found`);
      return { template: pool.spec?.sandboxTemplateRef?.name ?? '', pools: [pool] };
    }
    const template = spec.sandboxTemplateRef?.name ?? '';
    const policy = spec.warmpool ?? 'default';
    if (policy === 'none') return { template, pools: [] };
    const pools = this.client.list<SandboxWarmPool>(poolRef, ns).filter((p) => p.spec?.sandboxTemplateRef?.name === template && (policy === 'default' || p.metadata.name === policy));
    return { template, pools };
  }

  private async adopt(claim: SandboxClaim): Promise<Sandbox | undefined> {
    const ns = claim.metadata.namespace ?? '';
    for (const pool of this.source(claim).pools) {
      const candidates = this.client.list<Sandbox>(sandboxRef, ns, { labelSelector: `${lbl.warmPool}=${nameHash(pool.metadata.name ?? '')}` })
        .filter((sb) => controllerOf(sb)?.uid === pool.metadata.uid && isReady(sb))
        .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)));
      for (const cand of candidates) {
        try {
          return await this.client.guaranteedUpdate<Sandbox>(sandboxRef, ns, cand.metadata.name ?? '', (cur) => {
            // Another claim may have won the race: only a sandbox still controlled by the pool is taken.
            if (controllerOf(cur)?.uid !== pool.metadata.uid) throw new ClaimError('AdoptionConflict', `sandbox "${cur.metadata.name}" was taken by another claim`);
            const labels = { ...(cur.metadata.labels ?? {}) };
            delete labels[lbl.warmPool];
            const annotations = { ...(cur.metadata.annotations ?? {}), 'agents.x-k8s.io/pod-name': cur.metadata.name ?? '' };
            return { ...cur, metadata: { ...cur.metadata, labels, annotations, ownerReferences: [ownerReference(claim)] } };
          });
        } catch (e) {
          if (!(e instanceof ClaimError) && !notFound(e)) throw e;
        }
      }
    }
    return undefined;
  }

  private async create(claim: SandboxClaim): Promise<Sandbox> {
    const ns = claim.metadata.namespace ?? '';
    const { template } = this.source(claim);
    const tmpl = this.client.get<SandboxTemplate>(templateRef, ns, template);
    if (!tmpl) throw new ClaimError('TemplateNotFound', `SandboxTemplate "${template}" not found`);
    const existing = this.client.get<Sandbox>(sandboxRef, ns, claim.metadata.name ?? '');
    if (existing) {
      const ref = controllerOf(existing);
      throw new ClaimError('ReconcilerError', `Error seen: sandbox "${claim.metadata.name}" is not owned by this claim${ref ? ` (owned by ${ref.kind}/${ref.name})` : ''}`);
    }
    return await this.client.create<Sandbox>(sandboxRef, ns, {
      apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox',
      metadata: { name: claim.metadata.name, namespace: ns, labels: { [lbl.templateRefHash]: nameHash(template) }, ownerReferences: [ownerReference(claim)] },
      spec: specFromTemplate(tmpl),
    });
  }
}

function readyCondition(claim: SandboxClaim, sb: Sandbox | undefined, err: unknown): Condition {
  const gen = claim.metadata.generation;
  if (err instanceof ClaimError) return { type: 'Ready', status: 'False', reason: err.reason, message: err.message, observedGeneration: gen };
  if (err) return { type: 'Ready', status: 'False', reason: 'ReconcilerError', message: `Error seen: ${(err as Error).message}`, observedGeneration: gen };
  if (!sb) return { type: 'Ready', status: 'False', reason: 'SandboxMissing', message: 'Sandbox does not exist', observedGeneration: gen };
  const c = sb.status?.conditions?.find((x) => x.type === 'Ready');
  if (c) return { type: 'Ready', status: c.status, reason: c.reason, message: c.message, observedGeneration: gen };
  return { type: 'Ready', status: 'False', reason: 'SandboxNotReady', message: 'Sandbox is not ready', observedGeneration: gen };
}

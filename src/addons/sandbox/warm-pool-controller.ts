// The SandboxWarmPool controller, as agent-sandbox's: a pool keeps `spec.replicas` Sandboxes made from its template
// (named `<pool>-<random>`, owned by the pool, labelled with the pool's name hash), creating new ones when claims take
// some over (the claim removes the label and the pool's ownerReference) and deleting surplus ones, not-ready first.
// Status: replicas, readyReplicas and the selector of its sandboxes. Level-triggered.
import type { Client } from '../../client/client.js';
import { ApiError } from '../../machinery/errors.js';
import { defineController } from '../../controllers/runtime/index.js';
import { controllerOf, labels as lbl, nameHash, ownerReference, sandboxRef, type Sandbox } from './sandbox-types.js';
import { isReady, poolRef, specFromTemplate, templateRef, type SandboxTemplate, type SandboxWarmPool } from './sandbox-extensions-types.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

const notFound = (e: unknown) => e instanceof ApiError && e.code === 404;
/** How many sandboxes one pass may create: a bound on a pool asking for a huge replica count. */
const maxCreatesPerPass = 50;

export const warmPoolController = defineController({
  name: 'sandboxwarmpool',
  for: poolRef,
  // A claim taking a sandbox over moves its ownerReference away: the pool named before hears of it too.
  owns: [sandboxRef],
  watches: [{
    resource: templateRef,
    map: (c, { client }) => client.list<SandboxWarmPool>(poolRef, c.object.metadata.namespace ?? '')
      .filter((p) => p.spec?.sandboxTemplateRef?.name === c.object.metadata.name).map(keyOf),
  }],
  setup: ({ client }) => new WarmPoolController(client),
});

class WarmPoolController {
  constructor(private readonly client: Client) {}


  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    const pool = this.client.get<SandboxWarmPool>(poolRef, ns, name);
    if (!pool || pool.metadata.deletionTimestamp) return;
    const hash = nameHash(name);
    const members = this.client.list<Sandbox>(sandboxRef, ns, { labelSelector: `${lbl.warmPool}=${hash}` })
      .filter((sb) => controllerOf(sb)?.uid === pool.metadata.uid && !sb.metadata.deletionTimestamp);
    const want = Math.max(0, pool.spec?.replicas ?? 0);
    let err: unknown;
    if (members.length < want) {
      const tmplName = pool.spec?.sandboxTemplateRef?.name ?? '';
      const tmpl = this.client.get<SandboxTemplate>(templateRef, ns, tmplName);
      if (!tmpl) err = new Error(`SandboxTemplate "${tmplName}" not found`);
      else {
        for (let i = 0; i < Math.min(want - members.length, maxCreatesPerPass); i++) {
          try {
            members.push(await this.client.create<Sandbox>(sandboxRef, ns, this.sandboxFor(pool, tmpl, hash)));
          } catch (e) {
            err = e;
            break;
          }
        }
      }
    } else if (members.length > want) {
      const surplus = [...members].sort((a, b) => Number(isReady(a)) - Number(isReady(b))).slice(0, members.length - want);
      for (const sb of surplus) {
        try {
          await this.client.delete(sandboxRef, ns, sb.metadata.name ?? '');
        } catch (e) {
          if (!notFound(e)) err ??= e;
        }
        members.splice(members.indexOf(sb), 1);
      }
    }
    const status = { replicas: members.length, readyReplicas: members.filter(isReady).length, selector: `${lbl.warmPool}=${hash}`, observedGeneration: pool.metadata.generation };
    if (JSON.stringify(pool.status ?? {}) !== JSON.stringify(status)) {
      try {
        await this.client.guaranteedUpdate(poolRef, ns, name, (cur) => ({ ...cur, status }), { subresource: 'status' });
      } catch (e) {
        if (!notFound(e)) err ??= e;
      }
    }
    if (err) throw err;
  }

  private sandboxFor(pool: SandboxWarmPool, tmpl: SandboxTemplate, hash: string): Sandbox {
    const spec = specFromTemplate(tmpl);
    const tmplHash = nameHash(tmpl.metadata.name ?? '');
    const podMeta = (spec.podTemplate ??= {}).metadata ?? {};
    spec.podTemplate.metadata = { ...podMeta, labels: { ...(podMeta.labels ?? {}) } };
    return {
      apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox',
      metadata: {
        generateName: `${pool.metadata.name}-`, namespace: pool.metadata.namespace,
        labels: { [lbl.warmPool]: hash, [lbl.templateRefHash]: tmplHash },
        annotations: { 'agents.x-k8s.io/sandbox-template-ref': tmpl.metadata.name ?? '' },
        ownerReferences: [ownerReference(pool)],
      },
      spec,
    };
  }
}

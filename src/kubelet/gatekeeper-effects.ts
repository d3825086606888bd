// What Gatekeeper's running pods do to the API that a user's next step needs: while a pod of the
// openpolicyagent/gatekeeper image is Running, each ConstraintTemplate gets its constraint kind's CRD (so the
// constraint the docs create next has a kind) and the template's status reports it (`created`, and one `byPod`
// entry per gatekeeper pod, as its status controller aggregates them); a deleted template's CRD is removed. Nothing
// runs in a simulated container, so these writes are made for it, as the pod's ServiceAccount (RBAC applies).
// Admission decisions (Rego) are not simulated: the webhooks are answered as any simulated webhook is.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import type { Change } from '../client/types.js';
import { serviceAccountUser } from '../auth/identities.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { WorkQueue } from '../util/work-queue.js';
import { statusCode } from '../controllers/workload/pod-control.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { constraintCrdFor, constraintGroup } from './gatekeeper-constraint-crd.js';

const templates = 'templates.gatekeeper.sh/v1/constrainttemplates';
const templatesKey = 'templates.gatekeeper.sh/constrainttemplates';
const crds = 'apiextensions.k8s.io/v1/customresourcedefinitions';
const isGatekeeperImage = (image: string | undefined) => /(^|\/)gatekeeper(:|@|$)/.test(image ?? '');

function isGatekeeperPod(obj: KObject | undefined): boolean {
  const pod = obj as Pod | undefined;
  return !!pod?.spec?.containers?.some((c) => isGatekeeperImage(c.image));
}

/** The `--operation` flags of the pod's gatekeeper container (gatekeeper's own default when none). */
function operations(pod: Pod): string[] {
  const c = pod.spec?.containers?.find((x) => isGatekeeperImage(x.image));
  const ops = (c?.args ?? []).slice(0, 256).flatMap((a) => (a.startsWith('--operation=') ? [a.slice('--operation='.length)] : []));
  return ops.length ? ops : ['audit', 'status', 'webhook'];
}

export class GatekeeperEffects {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly client: Client, clock: Clock, private readonly log: Logger) {
    this.queue = new WorkQueue('gatekeeper-effects', (name) => this.sync(name), clock, log);
    this.stops.push(client.watchAll((c) => this.onChange(c)));
  }

  private onChange(c: Change): void {
    if (c.resource === templatesKey) this.queue.add(c.object.metadata.name ?? '');
    else if (c.resource === 'core/pods' && (isGatekeeperPod(c.object) || isGatekeeperPod(c.previous))) this.requeueAll();
  }

  private requeueAll(): void {
    if (!this.client.resource(templates)) return;
    for (const t of this.client.list(templates)) this.queue.add(t.metadata.name ?? '');
  }

  /** The running gatekeeper pods, by name. */
  private runningPods(): Pod[] {
    return (this.client.list('v1/pods') as Pod[])
      .filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && isGatekeeperPod(p as KObject))
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  }

  private async sync(name: string): Promise<void> {
    const pods = this.runningPods();
    if (!pods.length || !this.client.resource(templates)) return;
    const first = pods[0];
    const as = this.client.as(serviceAccountUser(first.metadata?.namespace ?? 'default', first.spec?.serviceAccountName ?? 'default'));
    const template = this.client.get(templates, '', name);
    if (!template || template.metadata.deletionTimestamp) return this.removeCrd(as, name);
    const made = constraintCrdFor(template);
    let error = made.error ? { code: 'ingest_error', message: made.error } : undefined;
    if (made.crd) error = await this.writeCrd(as, made.crd);
    const byPod = pods.map((p) => ({
      id: p.metadata?.name ?? '', observedGeneration: template.metadata.generation ?? 1, operations: operations(p), templateUID: template.metadata.uid ?? '',
      ...(error ? { errors: [error] } : {}),
    }));
    const status = { created: !error, byPod };
    const current = isRecord(template.status) ? template.status : {};
    if (JSON.stringify({ created: current.created, byPod: current.byPod }) === JSON.stringify(status)) return;
    await as.updateStatus(templates, '', name, { ...template, status: { ...current, ...status } });
  }

  /** Creates or updates the CRD; a refusal (an invalid schema, RBAC) is the template's error, a conflict retries. */
  private async writeCrd(as: Client, crd: KObject): Promise<{ code: string; message: string } | undefined> {
    try {
      await this.applyCrd(as, crd);
      return undefined;
    } catch (err) {
      const code = statusCode(err);
      if (code === undefined || code === 409 || code >= 500) throw err;
      return { code: 'create_error', message: err instanceof Error ? err.message : String(err) };
    }
  }

  private async applyCrd(as: Client, crd: KObject): Promise<void> {
    const name = crd.metadata.name ?? '';
    const current = as.get(crds, '', name);
    if (!current) {
      await as.create(crds, '', crd);
      this.log.debug({ crd: name }, 'gatekeeper: constraint CRD created');
      return;
    }
    const have: Readonly<Record<string, unknown>> = current.spec ?? {};
    const want = isRecord(crd.spec) ? crd.spec : {};
    if (Object.keys(want).every((k) => JSON.stringify(have[k]) === JSON.stringify(want[k]))) return;
    await as.guaranteedUpdate(crds, '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: crd.metadata.labels }, spec: { ...(isRecord(cur.spec) ? cur.spec : {}), ...want } }));
  }

  private async removeCrd(as: Client, templateName: string): Promise<void> {
    const name = `${templateName}.${constraintGroup}`;
    const crd = as.get(crds, '', name);
    if (crd?.metadata.labels?.['gatekeeper.sh/constraint'] !== 'yes') return;
    try {
      await as.delete(crds, '', name);
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}

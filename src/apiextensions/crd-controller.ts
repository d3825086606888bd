// What kube-apiserver's apiextensions controllers do, in one level-triggered loop per CRD: accept its names, establish
// it (serve its resource), keep its status, and on deletion remove its objects before the CRD goes.
import type { Registry } from '../registry/registry.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import type { Clock } from '../util/clock.js';
import { rfc3339 } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from '../util/work-queue.js';
import { customResourceDef } from './custom-resource.js';
import { judgeNames } from './crd-names.js';
import { cleanupFinalizer, conditionOf, crdKey, customResourceKey, type Crd, type CrdCondition } from './crd-types.js';
import { loadEngines } from './engines.js';

export interface ServingHooks {
  /** Called after a CRD's resource is served (or served anew after a change). */
  served?(crd: Crd): void;
  /** Called after the resource stored under `key` is no longer served. */
  unserved?(key: string): void;
}

interface Serving {
  key: string;
  /** The CRD state the served declaration was built from (its generation and whether it was terminating). */
  generation: number;
  terminating: boolean;
}

export class CrdController {
  private readonly queue: WorkQueue;
  private readonly serving = new Map<string, Serving>();
  private readonly stops: Array<() => void> = [];
  private readonly watchedKeys = new Map<string, () => void>();

  constructor(private readonly reg: Registry, private readonly clock: Clock, log: Logger, private readonly hooks: ServingHooks = {}) {
    this.queue = new WorkQueue('customresourcedefinitions', (name) => this.reconcile(name), clock, log);
    this.stops.push(reg.onChange(crdKey, (c) => {
      this.queue.add(c.object.metadata.name ?? '');
      this.requeueRefused(c.object as Crd);
    }));
    for (const crd of reg.listStored(crdKey) as Crd[]) {
      // Established CRDs are served at once after a restart; their schemas compile on first use.
      if (conditionOf(crd, 'Established')?.status === 'True' && !crd.metadata.deletionTimestamp) this.serve(crd);
      this.queue.add(crd.metadata.name ?? '');
    }
  }

  stop(): void {
    this.queue.stop();
    for (const s of this.stops) s();
    for (const s of this.watchedKeys.values()) s();
  }

  /**
   * A change of one CRD (its names, or its deletion) may free names another CRD of its group was refused: those are
   * judged again at once, as upstream's naming controller requeues the group's other CRDs.
   */
  private requeueRefused(changed: Crd): void {
    const group = changed.spec?.group;
    for (const o of this.reg.listStored(crdKey) as Crd[]) {
      if (o.metadata.name === changed.metadata.name || o.spec?.group !== group) continue;
      if (conditionOf(o, 'NamesAccepted')?.status !== 'True') this.queue.add(o.metadata.name ?? '');
    }
  }

  private crdDef() {
    const def = this.reg.findByKind('apiextensions.k8s.io', 'CustomResourceDefinition');
    if (!def) throw new Error('CustomResourceDefinitions are not served');
    return def;
  }

  private serve(crd: Crd): void {
    const name = crd.metadata.name ?? '';
    const key = customResourceKey(crd.spec.group, crd.spec.names.plural);
    const terminating = !!crd.metadata.deletionTimestamp;
    const have = this.serving.get(name);
    if (have && have.key === key && have.generation === crd.metadata.generation && have.terminating === terminating) return;
    if (have && have.key !== key) this.unserve(name);
    this.reg.add(customResourceDef(crd, { terminating, textOf: (o) => this.reg.pendingText(o) }));
    this.serving.set(name, { key, generation: crd.metadata.generation ?? 0, terminating });
    this.hooks.served?.(crd);
  }

  private unserve(name: string): void {
    const have = this.serving.get(name);
    if (!have) return;
    this.serving.delete(name);
    this.reg.remove(have.key);
    this.hooks.unserved?.(have.key);
  }

  private async reconcile(name: string): Promise<void> {
    await loadEngines();
    const crd = this.reg.getStored(crdKey, '', name) as Crd | undefined;
    if (!crd) return this.unserve(name);
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);
    const others = this.reg.listStored(crdKey) as Crd[];
    const verdict = judgeNames(crd, others);
    const now = rfc3339(this.clock.now());
    const conditions = [...(crd.status?.conditions ?? [])];
    setCondition(conditions, { type: 'NamesAccepted', status: verdict.accepted ? 'True' : 'False', reason: verdict.reason, message: verdict.message }, now);
    if (verdict.accepted) {
      if (conditionOf(crd, 'Established')?.status !== 'True') setCondition(conditions, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
      this.serve(crd);
    } else if (!conditionOf(crd, 'Established')) {
      setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
    }
    const acceptedNames = verdict.accepted ? { ...crd.spec.names } : crd.status?.acceptedNames;
    await this.writeStatus(crd, { conditions, acceptedNames });
    // A CRD whose names were refused may be accepted once the conflicting one goes.
    if (!verdict.accepted) this.queue.addAfter(name, 5_000);
  }

  private async finalize(crd: Crd): Promise<void> {
    const name = crd.metadata.name ?? '';
    if (!crd.metadata.finalizers?.includes(cleanupFinalizer)) return this.unserve(name);
    const now = rfc3339(this.clock.now());
    const conditions = [...(crd.status?.conditions ?? [])];
    setCondition(conditions, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, now);
    await this.writeStatus(crd, { conditions });
    const key = customResourceKey(crd.spec.group, crd.spec.names.plural);
    if (this.serving.has(name)) this.serve(crd);
    const def = this.reg.defForKey(key);
    const items = this.reg.listStored(key);
    if (def && items.length) {
      this.watchInstances(name, key);
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          await this.reg.delete(def, o.metadata.namespace ?? '', o.metadata.name ?? '', { webhooks: false });
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
      if (this.reg.listStored(key).length) return; // instances with finalizers of their own: woken when they go
    }
    this.watchedKeys.get(name)?.();
    this.watchedKeys.delete(name);
    this.unserve(name);
    await this.reg.update(this.crdDef(), '', name, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== cleanupFinalizer);
      return cur;
    }, { webhooks: false });
  }

  /** While a CRD is terminating, each change of its instances wakes it (the last one gone lets it go). */
  private watchInstances(name: string, key: string): void {
    if (this.watchedKeys.has(name)) return;
    this.watchedKeys.set(name, this.reg.onChange(key, () => this.queue.add(name)));
  }

  private async writeStatus(crd: Crd, status: { conditions: CrdCondition[]; acceptedNames?: Crd['spec']['names'] }): Promise<void> {
    const next = { ...crd.status, ...status };
    if (!status.acceptedNames) next.acceptedNames = crd.status?.acceptedNames;
    if (JSON.stringify(next) === JSON.stringify(crd.status)) return;
    await this.reg.update(this.crdDef(), '', crd.metadata.name ?? '', (cur) => ({ ...cur, status: { ...(cur.status as object), ...status } } as KObject), { subresource: 'status', webhooks: false });
  }
}

/** Sets a condition, keeping its transition time when its status does not change (upstream's condition order: as added). */
function setCondition(conditions: CrdCondition[], c: Omit<CrdCondition, 'lastTransitionTime'>, now: string): void {
  const i = conditions.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const next: CrdCondition = { type: c.type, status: c.status, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now, reason: c.reason, message: c.message };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

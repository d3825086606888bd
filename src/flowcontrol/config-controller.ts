// kube-apiserver's API Priority and Fairness configuration producer and the FlowSchema status it keeps:
// - the mandatory PriorityLevelConfigurations and FlowSchemas exist and keep their built-in spec (and their
//   `apf.kubernetes.io/autoupdate-spec: "true"`), however they were changed or deleted;
// - the suggested ones are created when missing and kept at their built-in spec while that annotation is "true"
//   (an object without it counts as "true" until its spec was first changed: generation 1), else left alone;
// - an object no longer built in but carrying the annotation "true" is removed; a user's own objects are not touched;
// - each FlowSchema's `Dangling` condition says whether the priority level it names exists.
// Level-triggered: any change of either kind, and a resync every minute of clock time, reconcile the whole
// configuration again (it is a few dozen objects).
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import type { Clock } from '../util/clock.js';
import { rfc3339 } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from '../util/work-queue.js';
import { sameSpec } from '../registry/validation/flowcontrol.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.js';
import { autoUpdateAnnotation, type Condition, type FlowSchema, type PriorityLevelConfiguration } from './types.js';

export const flowSchemasRef = 'flowcontrol.apiserver.k8s.io/v1/flowschemas';
export const priorityLevelsRef = 'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const producer = 'api-priority-and-fairness-config-producer-v1';
const consumer = 'api-priority-and-fairness-config-consumer-v1';
const resyncMs = 60_000;
const configKey = '\u0000config';

/** kube-apiserver's loopback identity, which its post-start hooks write as. */
const apiserverUser = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
const apiserverComponent = { userAgent: 'kube-apiserver/v1.35.0 (linux/amd64) kubernetes/bonsai' };

type Wanted = FlowSchema | PriorityLevelConfiguration;

/** The annotation as a boolean, undefined when absent or not one of Go's ParseBool spellings. */
function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  return undefined;
}

function autoUpdateOf(o: KObject): boolean {
  const v = parseBool(o.metadata.annotations?.[autoUpdateAnnotation]);
  return v ?? o.metadata.generation === 1;
}

/** Equal specs, the exempt level's `spec.exempt` being the administrator's (upstream leaves it as set). */
function specMatches(wanted: Wanted, cur: KObject): boolean {
  if (wanted.kind === 'PriorityLevelConfiguration' && wanted.metadata.name === 'exempt') {
    const spec = cur.spec as Record<string, unknown> | undefined;
    if (!spec?.exempt) return false;
    return sameSpec({ ...wanted.spec, exempt: spec.exempt }, spec);
  }
  return sameSpec(wanted.spec, cur.spec);
}

/** The object to write to bring `cur` in line, or undefined when it already is. */
export function desiredUpdate(wanted: Wanted, cur: KObject, mandatory: boolean): KObject | undefined {
  const autoUpdate = mandatory || autoUpdateOf(cur);
  const annotationRight = parseBool(cur.metadata.annotations?.[autoUpdateAnnotation]) === autoUpdate;
  const specChanged = autoUpdate && !specMatches(wanted, cur);
  if (annotationRight && !specChanged) return undefined;
  return {
    ...cur,
    metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, [autoUpdateAnnotation]: String(autoUpdate) } },
    ...(specChanged ? { spec: structuredClone(wanted.spec) } : {}),
  };
}

/** The Dangling condition a FlowSchema should carry (without its transition time). */
export function danglingCondition(plName: string, exists: boolean): Condition {
  return exists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" but there is no such object` };
}

const ignorable = (err: unknown, ...codes: number[]) => err instanceof ApiError && codes.includes(err.code);

export class FlowcontrolConfigController {
  private readonly queue: WorkQueue;
  private readonly client: Client;
  private readonly stops: Array<() => void> = [];

  constructor(root: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.client = root.as(apiserverUser, apiserverComponent);
    this.queue = new WorkQueue('apf-config', (key) => this.reconcile(key), clock, log);
    if (!this.client.resource(flowSchemasRef) || !this.client.resource(priorityLevelsRef)) return;
    // The built-in objects exist before the first request is served.
    this.ensureConfig().catch((err: unknown) => {
      log.warn({ err }, 'ensuring the API Priority and Fairness configuration failed; retrying');
      this.queue.addAfter(configKey, 100);
    });
    this.stops.push(this.client.watch(flowSchemasRef, (c) => {
      this.queue.add(configKey);
      if (c.type !== 'DELETED') this.queue.add(c.object.metadata.name ?? '');
    }));
    this.stops.push(this.client.watch(priorityLevelsRef, () => {
      this.queue.add(configKey);
      this.enqueueAllSchemas();
    }));
    this.stops.push(clock.setInterval(() => this.queue.add(configKey), resyncMs));
    this.enqueueAllSchemas();
  }

  private enqueueAllSchemas(): void {
    for (const fs of this.client.list(flowSchemasRef)) this.queue.add(fs.metadata.name ?? '');
  }

  private async reconcile(key: string): Promise<void> {
    if (key === configKey) return this.ensureConfig();
    else await this.syncStatus(key);
  }

  private async ensureConfig(): Promise<void> {
    await this.ensureKind(priorityLevelsRef, mandatoryPriorityLevels, suggestedPriorityLevels);
    await this.ensureKind(flowSchemasRef, mandatoryFlowSchemas, suggestedFlowSchemas);
  }

  private async ensureKind(ref: string, mandatory: Wanted[], suggested: Wanted[]): Promise<void> {
    for (const [list, isMandatory] of [[mandatory, true], [suggested, false]] as const) {
      for (const wanted of list) await this.ensureOne(ref, wanted, isMandatory);
    }
    const wantedNames = new Set([...mandatory, ...suggested].map((o) => o.metadata.name));
    for (const cur of this.client.list(ref)) {
      const name = cur.metadata.name ?? '';
      if (wantedNames.has(name) || parseBool(cur.metadata.annotations?.[autoUpdateAnnotation]) !== true) continue;
      try {
        await this.client.delete(ref, '', name, { preconditions: { resourceVersion: cur.metadata.resourceVersion } });
        this.log.info({ resource: ref, name }, 'removed an automatically updated object that is no longer built in');
      } catch (err) {
        if (!ignorable(err, 404, 409)) throw err;
      }
    }
  }

  private async ensureOne(ref: string, wanted: Wanted, mandatory: boolean): Promise<void> {
    const name = wanted.metadata.name;
    const cur = this.client.get(ref, '', name);
    try {
      if (!cur) {
        await this.client.create(ref, '', structuredClone(wanted), { fieldManager: producer });
        return;
      }
      const next = desiredUpdate(wanted, cur, mandatory);
      if (next) await this.client.update(ref, '', name, next, { fieldManager: producer });
    } catch (err) {
      // Someone else wrote it meanwhile: the watch brings the key back.
      if (!ignorable(err, 404, 409)) throw err;
    }
  }

  private async syncStatus(name: string): Promise<void> {
    const fs = this.client.get<FlowSchema>(flowSchemasRef, '', name);
    if (!fs) return;
    const plName = fs.spec?.priorityLevelConfiguration?.name ?? '';
    const want = danglingCondition(plName, !!this.client.get(priorityLevelsRef, '', plName));
    const conditions = fs.status?.conditions ?? [];
    const old = conditions.find((c) => c.type === 'Dangling');
    if (old && old.status === want.status && old.reason === want.reason && old.message === want.message) return;
    // In the API's field order: type, status, lastTransitionTime, reason, message.
    const condition: Condition = { type: want.type, status: want.status, lastTransitionTime: rfc3339(this.clock.now()), reason: want.reason, message: want.message };
    const next = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
    try {
      await this.client.updateStatus(flowSchemasRef, '', name, { ...fs, status: { ...fs.status, conditions: next } }, { fieldManager: consumer });
    } catch (err) {
      if (!ignorable(err, 404, 409)) throw err;
    }
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}

export function startFlowcontrolConfig(root: Client, clock: Clock, log: Logger): { stop(): void } {
  return new FlowcontrolConfigController(root, clock, log);
}

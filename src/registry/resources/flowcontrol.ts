// flowcontrol.apiserver.k8s.io/v1 (API Priority and Fairness): FlowSchemas and PriorityLevelConfigurations, both
// cluster-scoped with a status subresource. Defaults as upstream's pkg/apis/flowcontrol/v1/defaults.go; the
// bootstrap objects and their Dangling status come from src/flowcontrol/config-controller.ts.
import type { ResourceDef } from '../resource.js';
import type { KObject } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';
import { validateFlowSchema, validatePriorityLevelConfiguration } from '../validation/flowcontrol.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from '../tables/flowcontrol.js';
import { flowcontrolGroup } from '../../flowcontrol/types.js';

const unset = (v: unknown) => v === undefined || v === null;
/** Go's zero value of an int32 field: absent, null or 0. */
const zero = (v: unknown) => unset(v) || v === 0;

function defaultFlowSchema(o: KObject): void {
  const spec = o.spec;
  if (isRecord(spec) && zero(spec.matchingPrecedence)) spec.matchingPrecedence = 1000;
}

function defaultPriorityLevel(o: KObject): void {
  const spec = o.spec;
  if (!isRecord(spec)) return;
  const exempt = spec.exempt;
  if (isRecord(exempt)) {
    if (unset(exempt.nominalConcurrencyShares)) exempt.nominalConcurrencyShares = 0;
    if (unset(exempt.lendablePercent)) exempt.lendablePercent = 0;
  }
  const limited = spec.limited;
  if (!isRecord(limited)) return;
  if (unset(limited.nominalConcurrencyShares)) limited.nominalConcurrencyShares = 30;
  if (unset(limited.lendablePercent)) limited.lendablePercent = 0;
  const queuing = isRecord(limited.limitResponse) ? limited.limitResponse.queuing : undefined;
  if (!isRecord(queuing)) return;
  if (zero(queuing.handSize)) queuing.handSize = 8;
  if (zero(queuing.queues)) queuing.queues = 64;
  if (zero(queuing.queueLengthLimit)) queuing.queueLengthLimit = 50;
}

export const flowcontrolResources: ResourceDef[] = [
  {
    group: flowcontrolGroup, version: 'v1', kind: 'FlowSchema', plural: 'flowschemas', singular: 'flowschema',
    namespaced: false, subresources: ['status'], generation: true, emptyStatus: {},
    defaults: defaultFlowSchema, validate: (o) => validateFlowSchema(o), table: flowSchemaPrinter,
  },
  {
    group: flowcontrolGroup, version: 'v1', kind: 'PriorityLevelConfiguration', plural: 'prioritylevelconfigurations', singular: 'prioritylevelconfiguration',
    namespaced: false, subresources: ['status'], generation: true, emptyStatus: {},
    defaults: defaultPriorityLevel, validate: (o) => validatePriorityLevelConfiguration(o), table: priorityLevelConfigurationPrinter,
  },
];

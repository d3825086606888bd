// kube-apiserver 1.35's built-in API Priority and Fairness configuration, as data: the mandatory objects (always
// present, always at this spec) and the suggested ones (created when missing, kept at this spec while their
// `apf.kubernetes.io/autoupdate-spec` annotation is "true"). Read from upstream's
// staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go; written here as data.
import {
  autoUpdateAnnotation, flowcontrolApiVersion,
  type DistinguisherMethodType, type FlowSchema, type PolicyRulesWithSubjects, type PriorityLevelConfiguration,
  type PriorityLevelConfigurationSpec, type ResourcePolicyRule, type Subject,
} from './types.js';

const all = '*';

function priorityLevel(name: string, spec: PriorityLevelConfigurationSpec): PriorityLevelConfiguration {
  return { apiVersion: flowcontrolApiVersion, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [autoUpdateAnnotation]: 'true' } }, spec };
}

/** A Limited level that queues: shares, lendable percent, then queues / hand size / queue length limit. */
function queuing(name: string, shares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit: number): PriorityLevelConfiguration {
  return priorityLevel(name, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } },
  });
}

function flowSchema(name: string, priorityLevelName: string, matchingPrecedence: number, distinguisher: DistinguisherMethodType | undefined, rules: PolicyRulesWithSubjects[]): FlowSchema {
  return {
    apiVersion: flowcontrolApiVersion, kind: 'FlowSchema', metadata: { name, annotations: { [autoUpdateAnnotation]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevelName }, matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const kubeSystemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } }));

const resources = (verbs: string[], apiGroups: string[], resourceNames: string[], namespaces: string[], clusterScope: boolean): ResourcePolicyRule =>
  ({ verbs, apiGroups, resources: resourceNames, ...(clusterScope ? { clusterScope } : {}), namespaces });

/** Every verb on every resource (namespaced and cluster-scoped) and every non-resource URL, for these subjects. */
const everything = (subjects: Subject[]): PolicyRulesWithSubjects[] => [{
  subjects,
  resourceRules: [resources([all], [all], [all], [all], true)],
  nonResourceRules: [{ verbs: [all], nonResourceURLs: [all] }],
}];

const controllerManager = 'system:kube-controller-manager';
const scheduler = 'system:kube-scheduler';
const leaderElectionVerbs = ['get', 'create', 'update'];

export const mandatoryPriorityLevels: PriorityLevelConfiguration[] = [
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
];

export const mandatoryFlowSchemas: FlowSchema[] = [
  flowSchema('exempt', 'exempt', 1, undefined, everything(groups('system:masters'))),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

export const suggestedPriorityLevels: PriorityLevelConfiguration[] = [
  queuing('system', 30, 33, 64, 6, 50),
  queuing('node-high', 40, 25, 64, 6, 50),
  queuing('leader-election', 10, 0, 16, 4, 50),
  queuing('workload-high', 40, 50, 128, 6, 50),
  queuing('workload-low', 100, 90, 128, 6, 50),
  queuing('global-default', 20, 50, 128, 6, 50),
];

export const suggestedFlowSchemas: FlowSchema[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups('system:nodes'))),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', [{
    subjects: groups('system:nodes'),
    resourceRules: [
      resources([all], [''], ['nodes', 'nodes/status'], [all], true),
      resources([all], ['coordination.k8s.io'], ['leases'], [all], false),
    ],
  }]),
  flowSchema('probes', 'exempt', 2, undefined, [{
    subjects: groups('system:unauthenticated', 'system:authenticated'),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }]),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', [{
    subjects: [...users(controllerManager, scheduler), ...kubeSystemServiceAccounts(all)],
    resourceRules: [
      resources(leaderElectionVerbs, [''], ['endpoints', 'configmaps'], ['kube-system'], false),
      resources(leaderElectionVerbs, ['coordination.k8s.io'], ['leases'], [all], false),
    ],
  }]),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', [{
    subjects: kubeSystemServiceAccounts(all),
    resourceRules: [
      resources(leaderElectionVerbs, [''], ['endpoints', 'configmaps'], [all], false),
      resources(leaderElectionVerbs, ['coordination.k8s.io'], ['leases'], [all], false),
    ],
  }]),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', [{
    subjects: [...users(controllerManager), ...kubeSystemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resources(leaderElectionVerbs, [''], ['endpoints'], [all], false)],
  }]),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(controllerManager))),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(scheduler))),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(kubeSystemServiceAccounts(all))),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups('system:serviceaccounts'))),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups('system:unauthenticated', 'system:authenticated'))),
];

/** Names of the mandatory objects (upstream refuses nothing for them; the config controller restores their spec). */
export const mandatoryPriorityLevelNames = new Set(mandatoryPriorityLevels.map((o) => o.metadata.name));
export const mandatoryFlowSchemaNames = new Set(mandatoryFlowSchemas.map((o) => o.metadata.name));

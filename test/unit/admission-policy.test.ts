// ValidatingAdmissionPolicy: a policy refusing Deployments with more than 5 replicas, bound with Deny and with Warn,
// a param-driven limit, matchConditions, and the validation of policies and bindings.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import type { AdmissionAttributes } from '../../src/admission/types.js';
import { loadCel, validatingAdmissionPolicyPlugin } from '../../src/admission/policy/index.js';
import { Authorization } from '../../src/auth/authorization.js';

const group = 'admissionregistration.k8s.io';

before(async () => {
  await loadCel();
});

function cluster() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ScaledClock(1), createLogger('silent'));
  bootstrap(reg);
  return reg;
}

async function policy(reg: Registry, spec: Record<string, unknown>, name = 'max-replicas'): Promise<void> {
  await reg.create(reg.find(group, 'v1', 'validatingadmissionpolicies')!, '', { apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
}

async function binding(reg: Registry, spec: Record<string, unknown>, name = 'max-replicas-binding'): Promise<void> {
  await reg.create(reg.find(group, 'v1', 'validatingadmissionpolicybindings')!, '', { apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
}

const deploymentRules = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] };
const maxFive = {
  matchConstraints: deploymentRules,
  validations: [{ expression: 'object.spec.replicas <= 5', message: 'replicas must be no greater than 5' }],
};

function deployment(reg: Registry, replicas: number, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', def: reg.find('apps', 'v1', 'deployments')!, resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, subresource: '', namespace: 'default', name: 'web',
    object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas } },
    oldObject: undefined, user: { username: 'alice', groups: ['system:authenticated'] }, dryRun: false, warnings: [],
    registry: reg, canWait: true, ...over,
  };
}

function authorizationStop(reg: Registry): void {
  reg.authorization?.stop();
}

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return assert.fail('expected an ApiError');
}

/** The ApiError a write is refused with. */
const rejectionOf = (write: Promise<unknown>): Promise<ApiError> => write.then(() => assert.fail('expected an ApiError'), (e: unknown) => {
  if (e instanceof ApiError) return e;
  throw e;
});

describe('ValidatingAdmissionPolicy', () => {
  it('checks permissions through the authorizer variable (RBAC answers as the request\'s user)', async () => {
    const reg = cluster();
    reg.authorization = new Authorization(['RBAC'], reg.store);
    await policy(reg, {
      matchConstraints: deploymentRules,
      validations: [{ expression: "authorizer.group('apps').resource('deployments').namespace(object.metadata.namespace).check('delete').allowed()", message: 'only those who may delete deployments may create them' }],
    });
    await binding(reg, { policyName: 'max-replicas', validationActions: ['Deny'] });
    const plugin = validatingAdmissionPolicyPlugin();
    const refused = rejection(() => plugin.validate!(deployment(reg, 1)));
    assert.match(refused.message, /denied request: only those who may delete deployments may create them/);
    plugin.validate!(deployment(reg, 1, { user: { username: 'root', groups: ['system:masters', 'system:authenticated'] } }));
    // A service account's rights, and a decision's reason.
    await policy(reg, {
      matchConstraints: deploymentRules,
      validations: [{ expression: "!authorizer.serviceAccount('kube-system', 'replicaset-controller').group('').resource('pods').namespace('default').check('create').allowed() || authorizer.path('/healthz').check('get').allowed()" }],
    }, 'sa-check');
    await binding(reg, { policyName: 'sa-check', validationActions: ['Deny'] }, 'sa-check-binding');
    plugin.validate!(deployment(reg, 1, { user: { username: 'root', groups: ['system:masters', 'system:authenticated'] } }));
    authorizationStop(reg);
  });

  it('refuses a Deployment with more than 5 replicas (Deny), synchronously', async () => {
    const reg = cluster();
    await policy(reg, maxFive);
    await binding(reg, { policyName: 'max-replicas', validationActions: ['Deny'] });
    const plugin = validatingAdmissionPolicyPlugin();
    assert.equal(plugin.handles!(deployment(reg, 3)), true);
    assert.equal(plugin.validate!(deployment(reg, 3)), undefined);
    const e = rejection(() => plugin.validate!(deployment(reg, 6)));
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.equal(e.message, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5`);
    assert.deepEqual(e.details?.causes, [{ message: `ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5` }]);
  });

  it('warns instead with Warn, and uses messageExpression and reason', async () => {
    const reg = cluster();
    await policy(reg, {
      matchConstraints: deploymentRules,
      validations: [{ expression: 'object.spec.replicas <= 5', messageExpression: '"replicas is " + string(object.spec.replicas) + ", at most 5"', reason: 'Forbidden' }],
    });
    await binding(reg, { policyName: 'max-replicas', validationActions: ['Warn', 'Audit'] });
    const a = deployment(reg, 7);
    validatingAdmissionPolicyPlugin().validate!(a);
    assert.deepEqual(a.warnings, [`Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': replicas is 7, at most 5`]);
    assert.deepEqual(JSON.parse(a.auditAnnotations!['validation.policy.admission.k8s.io/validation_failure']), [
      { message: 'replicas is 7, at most 5', policy: 'max-replicas', binding: 'max-replicas-binding', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    const reg2 = cluster();
    await policy(reg2, { matchConstraints: deploymentRules, validations: [{ expression: 'object.spec.replicas <= 5', reason: 'Forbidden' }] });
    await binding(reg2, { policyName: 'max-replicas', validationActions: ['Deny'] });
    const e = rejection(() => validatingAdmissionPolicyPlugin().validate!(deployment(reg2, 9)));
    assert.equal(e.code, 403);
    assert.match(e.message, /denied request: failed expression: object\.spec\.replicas <= 5$/);
  });

  it('is left alone by other kinds, unbound policies and non-matching bindings', async () => {
    const reg = cluster();
    await policy(reg, maxFive);
    const plugin = validatingAdmissionPolicyPlugin();
    assert.equal(plugin.handles!(deployment(reg, 9)), false);
    await binding(reg, { policyName: 'max-replicas', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } });
    assert.equal(plugin.validate!(deployment(reg, 9)), undefined);
    const cm = deployment(reg, 9, { def: reg.find('', 'v1', 'configmaps')!, resource: { group: '', version: 'v1', resource: 'configmaps' }, kind: { group: '', version: 'v1', kind: 'ConfigMap' } });
    assert.equal(plugin.handles!(cm), false);
  });

  it('reads its limit from a param and honours parameterNotFoundAction', async () => {
    const reg = cluster();
    await policy(reg, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: deploymentRules,
      matchConditions: [{ name: 'not-exempt', expression: '!has(object.metadata.labels) || !("exempt" in object.metadata.labels)' }],
      variables: [{ name: 'limit', expression: 'int(params.data.maxReplicas)' }],
      validations: [{ expression: 'object.spec.replicas <= variables.limit', messageExpression: '"at most " + params.data.maxReplicas' }],
    });
    await binding(reg, { policyName: 'max-replicas', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
    const plugin = validatingAdmissionPolicyPlugin();
    const missing = rejection(() => plugin.validate!(deployment(reg, 1)));
    assert.equal(missing.message, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`);
    await reg.create(reg.find('', 'v1', 'configmaps')!, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits' }, data: { maxReplicas: '3' } });
    assert.equal(plugin.validate!(deployment(reg, 3)), undefined);
    assert.match(rejection(() => plugin.validate!(deployment(reg, 4))).message, /denied request: at most 3$/);
    const exempt = deployment(reg, 4);
    exempt.object!.metadata.labels = { exempt: 'yes' };
    assert.equal(plugin.validate!(exempt), undefined);
  });

  it('refuses policies whose expressions do not compile and bindings without actions', async () => {
    const reg = cluster();
    const e = await rejectionOf(policy(reg, { matchConstraints: deploymentRules, validations: [{ expression: 'object.spec.replicas <= limit' }] }));
    assert.equal(e.code, 422);
    const cause = e.details?.causes?.[0];
    assert.equal(cause?.field, 'spec.validations[0].expression');
    assert.match(cause?.message ?? '', /^Invalid value: "object\.spec\.replicas <= limit": compilation failed: ERROR: <input>:1:25: undeclared reference to 'limit'/);
    const e2 = await rejectionOf(policy(reg, { matchConstraints: deploymentRules }));
    assert.deepEqual(e2.details?.causes?.map((c) => c.field), ['spec.validations', 'spec.auditAnnotations']);
    const e3 = await rejectionOf(binding(reg, { policyName: 'max-replicas', validationActions: [] }));
    assert.deepEqual(e3.details?.causes?.map((c) => `${c.field}: ${c.message}`), ['spec.validationActions: Required value: at least one validation action is required']);
  });
});

// The ValidatingAdmissionPolicy plugin (upstream's policy/validating dispatcher): every policy whose matchConstraints
// take the request is evaluated for each of its matching bindings and each param; Deny refuses, Warn warns, Audit
// annotates. Synchronous once the CEL engine is loaded (it loads on first sight of a policy, or via loadCel()).
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { ApiError } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { setOwn } from '../../util/own.js';
import { authorizerFor, loadCel, loadedCel, toCel, type CelCompiler } from './cel-adapter.js';
import { compilePolicy, evaluatePolicy, policyKey, type CompiledPolicy } from './compile.js';
import { bindingMatches, matchResources, rulesCover } from './matching.js';
import { collectParams } from './params.js';
import { isExemptConfiguration } from '../webhook/rules.js';
import { forbiddenFor } from '../webhook/dispatch.js';
import { admissionRequest, toMatchedVersion } from '../webhook/review.js';
import { PolicySource, type PolicyEntry } from './source.js';

const reasonCodes: Record<string, number> = { Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

interface Denial { policy: string; binding?: string; message: string; reason: string }

function namespaceObject(a: AdmissionAttributes): unknown {
  if (!a.namespace || (a.kind.group === '' && a.kind.kind === 'Namespace')) return null;
  const ns = a.registry.getStored('core/namespaces', '', a.namespace);
  if (!ns) return null;
  const m = ns.metadata;
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'generateName', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (m[k] !== undefined) metadata[k] = m[k];
  }
  return { apiVersion: 'v1', kind: 'Namespace', metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

function compiled(cel: CelCompiler, entry: PolicyEntry): CompiledPolicy {
  const key = policyKey(entry.policy);
  if (entry.compiled?.key !== key) entry.compiled = compilePolicy(cel, entry.policy);
  return entry.compiled;
}

function evaluate(cel: CelCompiler | undefined, entries: PolicyEntry[], a: AdmissionAttributes): void {
  const denials: Denial[] = [];
  const configError = (entry: PolicyEntry, binding: string | undefined, why: string) => {
    const fp = isRecord(entry.policy.spec) ? entry.policy.spec.failurePolicy : undefined;
    if (fp === 'Ignore') return;
    const message = binding === undefined ? `failed to configure policy: ${why}` : `failed to configure binding: ${why}`;
    denials.push({ policy: entry.name, binding, message: fp === undefined || fp === 'Fail' ? message : `unrecognized failure policy: '${String(fp)}'`, reason: '' });
  };
  for (const entry of entries) {
    const spec = isRecord(entry.policy.spec) ? entry.policy.spec : {};
    let match: ReturnType<typeof matchResources>;
    try {
      match = matchResources(spec.matchConstraints, a);
    } catch (e) {
      configError(entry, undefined, e instanceof Error ? e.message : String(e));
      continue;
    }
    if (!match) continue;
    if (!cel) { configError(entry, undefined, 'the CEL engine is not loaded yet'); continue; }
    const program = compiled(cel, entry);
    const annotations = new Map<string, string[]>();
    for (const binding of entry.bindings) {
      const bspec = isRecord(binding.spec) ? binding.spec : {};
      const bname = binding.metadata.name ?? '';
      try {
        if (!bindingMatches(bspec, a)) continue;
      } catch (e) {
        configError(entry, bname, e instanceof Error ? e.message : String(e));
        continue;
      }
      let params: Array<KObject | null>;
      try {
        params = collectParams(a, spec.paramKind, bspec.paramRef);
      } catch (e) {
        configError(entry, bname, e instanceof Error ? e.message : String(e));
        continue;
      }
      if (params.length === 0) continue;
      const base = {
        object: toCel(toMatchedVersion(match, a.object) ?? null),
        oldObject: toCel(toMatchedVersion(match, a.oldObject) ?? null),
        request: toCel({ ...admissionRequest(a, match, ''), dryRun: a.dryRun, options: a.options ?? null }),
        namespaceObject: toCel(namespaceObject(a)),
        authorizer: authorizerFor(a),
      };
      const actions = Array.isArray(bspec.validationActions) ? bspec.validationActions : [];
      for (const param of params) {
        const result = evaluatePolicy(program, { ...base, params: toCel(param) });
        result.decisions.forEach((d, i) => {
          if (d.action !== 'deny') return;
          if (actions.includes('Deny')) denials.push({ policy: entry.name, binding: bname, message: d.message, reason: d.reason });
          if (actions.includes('Warn') && a.warnings.length < 1000) a.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${entry.name}' with binding '${bname}': ${d.message}`);
          if (actions.includes('Audit')) {
            const value = JSON.stringify([{ message: d.message, policy: entry.name, binding: bname, expressionIndex: i, validationActions: actions }]);
            a.auditAnnotations ??= Object.create(null) as Record<string, string>;
            setOwn(a.auditAnnotations, 'validation.policy.admission.k8s.io/validation_failure', value);
          }
        });
        for (const { key, value } of result.annotations) {
          const list = annotations.get(key) ?? [];
          if (!list.includes(value)) list.push(value);
          annotations.set(key, list);
        }
        for (const message of result.annotationErrors) denials.push({ policy: entry.name, binding: bname, message, reason: '' });
      }
    }
    if (annotations.size) {
      a.auditAnnotations ??= Object.create(null) as Record<string, string>;
      for (const [k, v] of annotations) setOwn(a.auditAnnotations, `${entry.name}/${k}`, v.join(', '));
    }
  }
  if (denials.length === 0) return;
  const d = denials[0];
  const message = d.binding !== undefined
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const base = forbiddenFor(a, message);
  const reason = d.reason || 'Invalid';
  throw new ApiError(reasonCodes[reason] ?? 403, reason, base.message, { ...base.details, causes: [{ message }] });
}

export function validatingAdmissionPolicyPlugin(): AdmissionPlugin {
  const source = new PolicySource();
  const relevant = (a: AdmissionAttributes): PolicyEntry[] => {
    if (isExemptConfiguration(a.kind)) return [];
    const entries = source.current(a.registry);
    if (entries.length && !loadedCel()) void loadCel().catch(() => undefined);
    return entries.filter((e) => e.bindings.length > 0 && rulesCover(isRecord(e.policy.spec) ? e.policy.spec.matchConstraints : undefined, a));
  };
  return {
    name: 'ValidatingAdmissionPolicy',
    handles: (a) => relevant(a).length > 0,
    validate(a) {
      const entries = relevant(a);
      if (entries.length === 0) return;
      const cel = loadedCel();
      if (cel || !a.canWait) return evaluate(cel, entries, a);
      return loadCel().then((c) => evaluate(c, entries, a));
    },
  };
}

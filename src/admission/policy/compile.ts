// A ValidatingAdmissionPolicy's expressions compiled once per policy generation, and their evaluation for one
// request, binding and param (upstream's validator.go): decisions per validation, and audit annotations.
import { isRecord, type KObject } from '../../machinery/types.js';
import { fromCel, type CelCompiler, type CelProgram } from './cel-adapter.js';
import { policyVariables } from './variables.js';
import { compileConditions, evaluateConditions, type CompiledConditions } from '../webhook/match-conditions.js';

type Compiled = { program: CelProgram } | { error: string };

export interface CompiledValidation { expression: string; message: string; reason: string; check: Compiled; messageExpr?: Compiled }
export interface CompiledPolicy {
  key: string;
  failurePolicy: string;
  conditions: CompiledConditions;
  variables: Array<{ name: string; expression: string; compiled: Compiled }>;
  validations: CompiledValidation[];
  auditAnnotations: Array<{ key: string; valueExpression: string; compiled: Compiled }>;
}

const s = (v: unknown) => (typeof v === 'string' ? v : '');
const records = (v: unknown) => (Array.isArray(v) ? v.filter(isRecord) : []);

/** The cache key: a policy is recompiled when its uid or generation changes. */
export const policyKey = (p: KObject) => `${p.metadata.uid ?? ''}/${p.metadata.generation ?? 0}`;

export function compilePolicy(cel: CelCompiler, policy: KObject): CompiledPolicy {
  const spec = isRecord(policy.spec) ? policy.spec : {};
  const variables = records(spec.variables);
  const vars = policyVariables(spec.paramKind !== undefined && spec.paramKind !== null, variables.length > 0);
  const compile = (e: string, v: readonly string[] = vars): Compiled => cel.compile(e, v);
  return {
    key: policyKey(policy),
    failurePolicy: s(spec.failurePolicy) || 'Fail',
    conditions: compileConditions(cel, spec.matchConditions, vars),
    variables: variables.map((v) => ({ name: s(v.name), expression: s(v.expression), compiled: compile(s(v.expression)) })),
    validations: records(spec.validations).map((v) => ({
      expression: s(v.expression), message: s(v.message), reason: s(v.reason),
      check: compile(s(v.expression)),
      messageExpr: s(v.messageExpression).trim() ? compile(s(v.messageExpression), vars.filter((x) => x !== 'authorizer')) : undefined,
    })),
    auditAnnotations: records(spec.auditAnnotations).map((a) => ({ key: s(a.key), valueExpression: s(a.valueExpression), compiled: compile(s(a.valueExpression).trim()) })),
  };
}

export type Decision = { action: 'admit' } | { action: 'deny'; message: string; reason: string; error: boolean };
export interface EvalResult { decisions: Decision[]; annotations: Array<{ key: string; value: string }>; annotationErrors: string[] }

function run(c: Compiled, expression: string, vars: Record<string, unknown>): { value: unknown } | { error: string } {
  if ('error' in c) return { error: c.error };
  const r = c.program.evaluate(vars);
  return 'error' in r ? { error: `expression '${expression}' resulted in error: ${r.error}` } : r;
}

/** Upstream's maximum size of an evaluated messageExpression. */
const maxMessageBytes = 5 * 1024;

/** Evaluates a compiled policy; `vars` hold object, oldObject, request, params, namespaceObject, authorizer (CEL inputs). */
export function evaluatePolicy(p: CompiledPolicy, input: Record<string, unknown>): EvalResult {
  const failDecision = (message: string): Decision => (p.failurePolicy === 'Ignore' ? { action: 'admit' } : { action: 'deny', message, reason: '', error: true });
  const vars: Record<string, unknown> = { ...input };
  if (p.variables.length) {
    const computed = new Map<string, unknown>();
    vars.variables = computed;
    for (const v of p.variables) {
      const r = run(v.compiled, v.expression, vars);
      if ('value' in r) computed.set(v.name, r.value);
    }
  }
  if (p.conditions.length) {
    const m = evaluateConditions(p.conditions, vars, p.failurePolicy);
    if ('error' in m) return { decisions: [failDecision(m.error)], annotations: [], annotationErrors: [] };
    if (!m.matches) return { decisions: [], annotations: [], annotationErrors: [] };
  }
  const decisions = p.validations.map((v): Decision => {
    const r = run(v.check, v.expression, vars);
    if ('error' in r) return failDecision(r.error);
    if (r.value === true) return { action: 'admit' };
    if (r.value !== false) return failDecision(`expression '${v.expression}' resulted in error: no such overload`);
    let message = '';
    if (v.messageExpr) {
      const m = run(v.messageExpr, '', vars);
      if ('value' in m && typeof m.value === 'string') {
        message = m.value.trim();
        if (Buffer.byteLength(message) > maxMessageBytes || /\n/.test(message)) message = '';
      }
    }
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${v.expression.trim()}`;
    return { action: 'deny', message, reason: v.reason || 'Invalid', error: false };
  });
  const annotations: EvalResult['annotations'] = [];
  const annotationErrors: string[] = [];
  for (const a of p.auditAnnotations) {
    const r = run(a.compiled, a.valueExpression, vars);
    if ('error' in r) {
      if (p.failurePolicy !== 'Ignore') annotationErrors.push(r.error);
      continue;
    }
    const value = fromCel(r.value);
    if (value === null) continue;
    if (typeof value !== 'string') {
      annotationErrors.push(`valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeof value}. Return type must be either string or null.`);
      continue;
    }
    if (value.trim()) annotations.push({ key: a.key, value: value.trim().slice(0, 10 * 1024) });
  }
  return { decisions, annotations, annotationErrors };
}

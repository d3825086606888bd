// matchConditions: CEL expressions that must all be true for a webhook (or policy) to be called, as upstream's
// matchconditions matcher evaluates them: a false one skips the hook at once; errors follow the failure policy.
import { isRecord } from '../../machinery/types.js';
import type { CelCompiler, CelProgram } from '../policy/cel-adapter.js';

export interface CompiledCondition { name: string; expression: string; program?: CelProgram; error?: string }
export type CompiledConditions = CompiledCondition[];

/** Variables matchConditions see on webhooks; policies add `params`. */
export const webhookConditionVars = ['object', 'oldObject', 'request', 'authorizer'] as const;

export function compileConditions(cel: CelCompiler, conditions: unknown, vars: readonly string[]): CompiledConditions {
  const list = Array.isArray(conditions) ? conditions.filter(isRecord) : [];
  return list.map((c) => {
    const expression = typeof c.expression === 'string' ? c.expression : '';
    const name = typeof c.name === 'string' ? c.name : '';
    const r = cel.compile(expression, vars);
    return 'program' in r ? { name, expression, program: r.program } : { name, expression, error: r.error };
  });
}

export type ConditionResult = { matches: true } | { matches: false; failedCondition?: string } | { error: string };

/** Evaluates the conditions in order; `vars` already converted for CEL (see toCel). */
export function evaluateConditions(conditions: CompiledConditions, vars: Record<string, unknown>, failurePolicy: unknown): ConditionResult {
  const errors: string[] = [];
  for (const c of conditions) {
    if (!c.program) {
      errors.push(c.error ?? 'compilation failed');
      continue;
    }
    const r = c.program.evaluate(vars);
    if ('error' in r) {
      errors.push(`expression '${c.expression}' resulted in error: ${r.error}`);
      continue;
    }
    if (r.value === false) return { matches: false, failedCondition: c.name };
    if (r.value !== true) errors.push(`expression '${c.expression}' resulted in error: no such overload`);
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}

// Evaluation of compiled `x-kubernetes-validations` rules over an object (and its old version on update), with
// upstream's messages, reasons, field paths, transition-rule correlation and cost budget.
import type { CelValue } from '@bufbuild/cel';
import { perCallLimit } from '../cel/engine.js';
import { costLimitExceeded } from '../cel/budget.js';
import { optionalNone, optionalOf } from '../cel/lib-optional.js';
import { toCelValue } from '../cel/values.js';
import type { FieldError } from '../machinery/errors.js';
import { goQuote } from '../machinery/go-quote.js';
import { getOwn } from '../util/own.js';
import type { CompiledRule, CompiledRules, RuleNode } from './cel-rules-types.js';

/** Upstream's RuntimeCELCostBudget: what all rules of one request may cost together. */
export const runtimeCostBudget = 10_000_000;
const maxWalkDepth = 100;

interface State { errors: FieldError[]; budget: number }
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's rendering of a bad value: strings quoted, numbers and booleans plain; objects and arrays omitted. */
function valueText(v: unknown): string | undefined {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  return undefined;
}

function invalid(field: string, value: unknown, detail: string): FieldError {
  const shown = valueText(value);
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${shown === undefined ? '' : `${shown}: `}${detail}` };
}

const typeValue = (n: RuleNode) => n.view.type || 'object';

function errorForReason(field: string, value: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, message: `Required value: ${detail}` };
    case 'FieldValueDuplicate': {
      const shown = valueText(value);
      return { type: 'FieldValueDuplicate', field, message: shown === undefined ? 'Duplicate value' : `Duplicate value: ${shown}` };
    }
    default:
      return invalid(field, value, detail);
  }
}

const ruleText = (r: CompiledRule) => (r.spec.message?.trim() ? r.spec.message.trim() : r.spec.rule.trim());

function messageFor(r: CompiledRule, act: Record<string, CelValue>, st: State): string {
  if (r.messageProgram) {
    const m = r.messageProgram.eval(act, Math.min(perCallLimit, Math.max(0, st.budget)));
    st.budget -= m.cost;
    if (m.ok && typeof m.value === 'string') {
      const t = m.value.trim();
      if (t && !t.includes('\n') && t.length <= 5120) return t;
    }
  }
  return r.spec.message?.trim() ? r.spec.message.trim() : `failed rule: ${ruleText(r)}`;
}

/** Runs the node's own rules; false when the budget ran out and validation must stop. */
function runRules(n: RuleNode, path: string, value: unknown, old: unknown, hasOld: boolean, st: State): boolean {
  if (!n.rules.length) return true;
  const field = path || '<nil>';
  let self: CelValue | undefined;
  let oldSelf: CelValue | undefined;
  for (const r of n.rules) {
    if (!r.program) continue;
    if (r.transition && !hasOld && !r.spec.optionalOldSelf) continue;
    if (st.budget <= 0) {
      st.errors.push(invalid(field, typeValue(n), 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return false;
    }
    self ??= toCelValue(value, n.view);
    if (hasOld) oldSelf ??= toCelValue(old, n.view);
    const act: Record<string, CelValue> = { self };
    if (r.spec.optionalOldSelf) act.oldSelf = hasOld ? optionalOf(oldSelf as CelValue) : optionalNone();
    else if (hasOld) act.oldSelf = oldSelf as CelValue;
    const res = r.program.eval(act, Math.min(perCallLimit, st.budget));
    st.budget -= res.cost;
    if (!res.ok) {
      if (res.costExceeded) {
        st.errors.push(invalid(field, typeValue(n), `'${costLimitExceeded}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(r)}`));
        st.budget = -1;
        return false;
      }
      if (res.timedOut) {
        // The wall-clock guard, not the cost verdict: say so, and run no further rule in this request.
        st.errors.push(invalid(field, typeValue(n), `'${res.error}': no further validation rules will be run for rule: ${ruleText(r)}`));
        st.budget = -1;
        return false;
      }
      const msg = res.error.replace(/^field not found: /, 'no such key: ');
      if (msg.startsWith('no such overload') || msg.startsWith('unbound function')) {
        st.errors.push(invalid(field, typeValue(n), `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(r)}`));
      } else st.errors.push(invalid(field, typeValue(n), `${msg} evaluating rule: ${ruleText(r)}`));
      continue;
    }
    if (res.value === true) continue;
    const at = r.fieldPath ? (path ? `${path}${r.fieldPath}` : r.fieldPath.replace(/^\./, '')) : field;
    const shown = isObj(value) || Array.isArray(value) ? undefined : value;
    st.errors.push(errorForReason(at, shown, messageFor(r, act, st), r.spec.reason));
  }
  return true;
}

function mapKeyOf(item: unknown, keys: string[]): string | undefined {
  if (!isObj(item)) return undefined;
  return JSON.stringify(keys.map((k) => getOwn(item, k) ?? null));
}

function walk(n: RuleNode, path: string, value: unknown, old: unknown, hasOld: boolean, st: State, depth: number): boolean {
  if (value === null || value === undefined) return true;
  if (depth > maxWalkDepth) return true;
  if (!runRules(n, path, value, old, hasOld, st)) return false;
  const v = n.view;
  if (isObj(value)) {
    const oldObj = hasOld && isObj(old) ? old : undefined;
    const correlatable = v.mapType !== 'atomic';
    for (const k of Object.keys(value)) {
      const child = n.properties?.get(k) ?? (v.properties?.has(k) ? undefined : n.additionalProperties);
      if (!child) continue;
      const childPath = n.properties?.has(k) ? (path ? `${path}.${k}` : k) : `${path}[${k}]`;
      const oldHas = correlatable && oldObj !== undefined && Object.prototype.hasOwnProperty.call(oldObj, k);
      if (!walk(child, childPath, value[k], oldHas ? oldObj![k] : undefined, oldHas, st, depth + 1)) return false;
    }
  } else if (Array.isArray(value) && n.items) {
    const keys = v.listType === 'map' ? v.listMapKeys ?? [] : undefined;
    let oldByKey: Map<string, unknown> | undefined;
    if (keys && hasOld && Array.isArray(old)) {
      oldByKey = new Map();
      for (const o of old) {
        const key = mapKeyOf(o, keys);
        if (key !== undefined) oldByKey.set(key, o);
      }
    }
    for (let i = 0; i < value.length; i++) {
      const key = keys ? mapKeyOf(value[i], keys) : undefined;
      const oldItem = key !== undefined ? oldByKey?.get(key) : undefined;
      if (!walk(n.items, `${path}[${i}]`, value[i], oldItem, oldItem !== undefined, st, depth + 1)) return false;
    }
  }
  return true;
}

/**
 * Evaluates the compiled rules over `obj`; `oldObj` is the stored object on update (transition rules run only
 * then, unless `optionalOldSelf`). Returns the field errors to refuse the write with (empty when valid).
 */
export function validateRules(rules: CompiledRules, obj: unknown, oldObj?: unknown, budget = runtimeCostBudget): FieldError[] {
  if (!rules.root) return [];
  const st: State = { errors: [], budget };
  walk(rules.root, '', obj, oldObj, oldObj !== undefined, st, 0);
  return st.errors;
}

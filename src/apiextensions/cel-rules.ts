// `x-kubernetes-validations` of a structural schema: compile every rule once (errors are what the CRD create or
// update is refused with, on upstream's paths and with upstream's texts), and validate objects against the
// compiled rules (cel-rules-validate.ts). Pulls in @bufbuild/cel: import lazily (see loadCelRules).
import { compile } from '../cel/engine.js';
import { declType } from '../cel/decl.js';
import { toSchemaView, type SchemaView } from '../cel/schema-view.js';
import { optionalOf, typeName, type CelT } from '../cel/types.js';
import { goQuote } from '../machinery/go-quote.js';
import type { FieldError } from '../machinery/errors.js';
import { getOwn } from '../util/own.js';
import { resolveFieldPath } from './cel-rules-path.js';
import type { CompiledRule, CompiledRules, RuleNode, RuleSpec } from './cel-rules-types.js';

export type { CompiledRules, RuleSpec } from './cel-rules-types.js';
export { validateRules } from './cel-rules-validate.js';

/** Upstream's StaticEstimatedCostLimit: the most one rule may be estimated to cost. */
export const staticEstimatedCostLimit = 10_000_000;
const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

const typeKeys = new WeakMap<CelT, string>();
function typeKey(t: CelT): string {
  const hit = typeKeys.get(t);
  if (hit) return hit;
  let key: string;
  if (t.k === 'object') key = `{${[...t.fields].map(([k, v]) => `${k}:${typeKey(v)}`).join(',')}}`;
  else if (t.k === 'list') key = `[${typeKey(t.elem)}]${t.maxItems ?? ''}`;
  else if (t.k === 'map') key = `<${typeKey(t.val)}>${t.maxProperties ?? ''}`;
  else if (t.k === 'string') key = `s${t.maxLength ?? ''}`;
  else key = typeName(t);
  typeKeys.set(t, key);
  return key;
}

function ruleSpecs(raw: unknown): RuleSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((r): RuleSpec => {
    const o = typeof r === 'object' && r !== null ? (r as Record<string, unknown>) : {};
    const str = (k: string) => (typeof getOwn(o, k) === 'string' ? (getOwn(o, k) as string) : undefined);
    return { rule: str('rule') ?? '', message: str('message'), messageExpression: str('messageExpression'), reason: str('reason'),
      fieldPath: str('fieldPath'), optionalOldSelf: getOwn(o, 'optionalOldSelf') === true ? true : undefined };
  });
}

/** Go's %#v of an apiextensions.ValidationRule, as upstream prints it in compile errors. */
function goRule(r: RuleSpec): string {
  const ptr = (t: string, v: unknown) => (v === undefined ? `(*${t})(nil)` : `(*${t})(0xc000000000)`);
  return `apiextensions.ValidationRule{Rule:${goQuote(r.rule)}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason)}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf)}}`;
}

function costFactor(cost: number, limit: number): string {
  const f = cost / limit;
  if (f > 100) return 'more than 100x';
  if (f < 1.5) return `${f.toFixed(6)}x`;
  return `${f.toFixed(1)}x`;
}
export const costErrorMessage = (what: string, cost: number, limit: number) =>
  `${what} exceeds budget by factor of ${costFactor(cost, limit)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;

interface Walk { errors: FieldError[]; count: number }

function compileNode(view: SchemaView, path: string, root: boolean, uncorrelatable: string | undefined, w: Walk, depth: number): RuleNode | undefined {
  if (depth > 64) return undefined;
  const specs = ruleSpecs(getOwn(view.raw, 'x-kubernetes-validations'));
  const rules: CompiledRule[] = [];
  if (specs.length) {
    const selfT = declType(view, root || view.embedded);
    specs.forEach((spec, i) => {
      const rulePath = `${path}.x-kubernetes-validations[${i}]`;
      const compiled = compileRule(spec, selfT, view, rulePath, uncorrelatable, w);
      if (compiled) rules.push(compiled);
      w.count++;
    });
  }
  const node: RuleNode = { view, rules };
  let any = rules.length > 0;
  if (view.properties) {
    for (const [k, child] of view.properties) {
      const c = compileNode(child, `${path}.properties[${k}]`, false, uncorrelatable, w, depth + 1);
      if (c) (node.properties ??= new Map()).set(k, c), (any = true);
    }
  }
  if (view.additionalProperties) {
    const un = uncorrelatable ?? (view.mapType === 'atomic' ? `${path}.additionalProperties` : undefined);
    node.additionalProperties = compileNode(view.additionalProperties, `${path}.additionalProperties`, false, un, w, depth + 1);
    any ||= node.additionalProperties !== undefined;
  }
  if (view.items) {
    const un = uncorrelatable ?? (view.listType === 'map' ? undefined : `${path}.items`);
    node.items = compileNode(view.items, `${path}.items`, false, un, w, depth + 1);
    any ||= node.items !== undefined;
  }
  return any ? node : undefined;
}

function compileRule(spec: RuleSpec, selfT: CelT, view: SchemaView, rulePath: string, uncorrelatable: string | undefined, w: Walk): CompiledRule | undefined {
  const err = (field: string, type: FieldError['type'], message: string) => w.errors.push({ type, field, message });
  const trimmed = spec.rule.trim();
  if (!trimmed) {
    err(`${rulePath}.rule`, 'FieldValueRequired', 'Required value: rule is not specified');
    return undefined;
  }
  if (spec.message !== undefined && spec.message.length > 0 && !spec.message.trim()) err(`${rulePath}.message`, 'FieldValueInvalid', `Invalid value: ${goQuote(spec.message)}: message must be non-empty if specified`);
  else if (spec.message && /\n/.test(spec.message.trim())) err(`${rulePath}.message`, 'FieldValueInvalid', `Invalid value: ${goQuote(spec.message)}: message must not contain line breaks`);
  else if (/\n/.test(trimmed) && !spec.message?.trim()) err(`${rulePath}.message`, 'FieldValueRequired', 'Required value: message must be specified if rule contains line breaks');
  if (spec.reason !== undefined && !supportedReasons.includes(spec.reason)) {
    err(`${rulePath}.reason`, 'FieldValueNotSupported', `Unsupported value: ${goQuote(spec.reason)}: supported values: ${supportedReasons.map((r) => `"${r}"`).join(', ')}`);
  }
  let fieldPath = '';
  if (spec.fieldPath !== undefined && spec.fieldPath.length > 0) {
    const fp = resolveFieldPath(spec.fieldPath.trim(), view);
    if (typeof fp === 'string') fieldPath = fp;
    else err(`${rulePath}.fieldPath`, 'FieldValueInvalid', `Invalid value: ${goQuote(spec.fieldPath)}: fieldPath must be a valid path: ${fp.error}`);
  }
  const vars = new Map<string, CelT>([['self', selfT], ['oldSelf', spec.optionalOldSelf ? optionalOf(selfT) : selfT]]);
  const envKey = `${spec.optionalOldSelf ? 'o' : ''}${typeKey(selfT)}`;
  const c = compile(spec.rule, vars, envKey);
  const bad = (detail: string) => err(`${rulePath}.rule`, 'FieldValueInvalid', `Invalid value: ${goRule(spec)}: ${detail}`);
  if (!c.ok) {
    bad(`compilation failed: ${c.error}`);
    return undefined;
  }
  const p = c.program;
  if (p.outputType.k !== 'bool' && p.outputType.k !== 'dyn') {
    bad('cel expression must evaluate to a bool');
    return undefined;
  }
  const transition = p.usesVars.has('oldSelf');
  if (transition && uncorrelatable !== undefined) {
    err(`${rulePath}.rule`, 'FieldValueInvalid', `Invalid value: ${goQuote(spec.rule)}: oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`);
  }
  if (p.estimatedCost > staticEstimatedCostLimit) {
    err(`${rulePath}.rule`, 'FieldValueForbidden', `Forbidden: ${costErrorMessage('estimated rule cost', p.estimatedCost, staticEstimatedCostLimit)}`);
  }
  let messageProgram;
  if (spec.messageExpression !== undefined && spec.messageExpression.trim()) {
    const m = compile(spec.messageExpression, vars, envKey);
    if (!m.ok) err(`${rulePath}.messageExpression`, 'FieldValueInvalid', `Invalid value: ${goRule(spec)}: messageExpression compilation failed: ${m.error}`);
    else if (m.program.outputType.k !== 'string' && m.program.outputType.k !== 'dyn') err(`${rulePath}.messageExpression`, 'FieldValueInvalid', `Invalid value: ${goRule(spec)}: messageExpression must evaluate to a string`);
    else if (m.program.estimatedCost > staticEstimatedCostLimit) err(`${rulePath}.messageExpression`, 'FieldValueForbidden', `Forbidden: ${costErrorMessage('estimated messageExpression cost', m.program.estimatedCost, staticEstimatedCostLimit)}`);
    else messageProgram = m.program;
  } else if (spec.messageExpression !== undefined && spec.messageExpression.length > 0) {
    err(`${rulePath}.messageExpression`, 'FieldValueRequired', 'Required value: messageExpression must be non-empty if specified');
  }
  return { spec, program: p, messageProgram, transition, fieldPath };
}

/**
 * Compiles every `x-kubernetes-validations` rule of an openAPIV3Schema. `basePath` is where the schema sits in
 * the CRD (`spec.versions[0].schema.openAPIV3Schema` for a v1 CRD's first version).
 */
export function compileSchemaRules(schema: unknown, basePath = 'spec.validation.openAPIV3Schema'): { errors: FieldError[]; rules: CompiledRules } {
  const w: Walk = { errors: [], count: 0 };
  const root = compileNode(toSchemaView(schema), basePath, true, undefined, w, 0);
  return { errors: w.errors, rules: { root, ruleCount: w.count } };
}

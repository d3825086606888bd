// Job spec.podFailurePolicy rules (batch/validation validatePodFailurePolicy, same paths and messages), plus the
// optional rule `name` (a Bonsai extension ahead of upstream KEP-4443): unique within the Job and usable as the
// suffix of the condition reason `PodFailurePolicy_<name>`.
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { arr, qualifiedNameErrors, rec, str, type Errs } from './common.js';
import { maxLenError, regexError } from '../../machinery/names.js';

const maxRules = 20;
const maxExitCodeValues = 255;
const maxPodConditionPatterns = 20;
const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const operators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];

/** Rule names: 1-63 characters, a letter first, then letters, digits, '_' or '-', not ending in '-'. */
export const ruleNameFmt = '[A-Za-z]([-A-Za-z0-9_]*[A-Za-z0-9_])?';
const ruleNameRe = new RegExp(`^${ruleNameFmt}$`);
export const maxRuleNameLength = 63;

/** Problems with a rule name, as messages (empty: valid). */
export function ruleNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > maxRuleNameLength) errs.push(maxLenError(maxRuleNameLength));
  if (!ruleNameRe.test(name)) {
    errs.push(regexError(
      "a pod failure policy rule name must consist of letters, digits, '_' or '-', must start with a letter and end with a letter, digit or '_'",
      ruleNameFmt, 'fatal-config', 'OOM_killed',
    ));
  }
  return errs;
}

/** `go's %q` of a string list: `["A" "B"]`. */
const quotedList = (vs: string[]) => `[${vs.map((v) => JSON.stringify(v)).join(' ')}]`;
const tooMany = (field: string, n: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field, message: `Too many: ${n}: must have at most ${max} items` });
/** field.Invalid with the value omitted from the message. */
const invalidNoValue = (field: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${detail}` });

function containerNames(spec: Record<string, unknown>): Set<string> {
  const podSpec = rec(rec(spec.template).spec);
  return new Set([...arr(podSpec.containers), ...arr(podSpec.initContainers)].map((c) => str(rec(c).name) ?? ''));
}

function validateOnExitCodes(req: Record<string, unknown>, path: string, names: Set<string>): Errs {
  const errs: Errs = [];
  const op = req.operator;
  if (op === undefined || op === null || op === '') errs.push(fieldRequired(`${path}.operator`, `valid values: ${quotedList(operators)}`));
  else if (!operators.includes(op as string)) errs.push(fieldNotSupported(`${path}.operator`, op, operators));
  const container = req.containerName;
  if (typeof container === 'string' && !names.has(container)) {
    errs.push(fieldInvalid(`${path}.containerName`, container, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = Array.isArray(req.values) ? (req.values as number[]) : [];
  if (values.length === 0) errs.push(fieldInvalid(`${path}.values`, req.values ?? null, 'at least one value is required'));
  else if (values.length > maxExitCodeValues) errs.push(tooMany(`${path}.values`, values.length, maxExitCodeValues));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(fieldInvalid(`${path}.values[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldDuplicate(`${path}.values[${j}]`, v));
    else seen.add(v);
    if (j > 0 && values[j - 1] > v) ordered = false;
  });
  if (!ordered) errs.push(fieldInvalid(`${path}.values`, values, 'must be ordered'));
  return errs;
}

function validateOnPodConditions(patterns: unknown[], path: string): Errs {
  const errs: Errs = [];
  if (patterns.length > maxPodConditionPatterns) errs.push(tooMany(path, patterns.length, maxPodConditionPatterns));
  patterns.forEach((p, j) => {
    const pattern = rec(p);
    const type = str(pattern.type) ?? '';
    errs.push(...qualifiedNameErrors(type, `${path}[${j}].type`));
    const status = pattern.status;
    if (status === undefined || status === null || status === '') errs.push(fieldRequired(`${path}[${j}].status`, `valid values: ${quotedList(conditionStatuses)}`));
    else if (!conditionStatuses.includes(status as string)) errs.push(fieldNotSupported(`${path}[${j}].status`, status, conditionStatuses));
  });
  return errs;
}

function validateRule(spec: Record<string, unknown>, rule: Record<string, unknown>, path: string, names: Set<string>): Errs {
  const errs: Errs = [];
  const action = rule.action;
  if (action === undefined || action === null || action === '') errs.push(fieldRequired(`${path}.action`, `valid values: ${quotedList(actions)}`));
  else if (action === 'FailIndex') {
    if (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null) {
      errs.push(fieldInvalid(`${path}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    }
  } else if (!actions.includes(action as string)) errs.push(fieldNotSupported(`${path}.action`, action, actions));
  if (typeof rule.name === 'string') {
    for (const msg of ruleNameErrors(rule.name)) errs.push(fieldInvalid(`${path}.name`, rule.name, msg));
  }
  const onExitCodes = isRecord(rule.onExitCodes) ? rule.onExitCodes : undefined;
  const onPodConditions = arr(rule.onPodConditions);
  if (onExitCodes) errs.push(...validateOnExitCodes(onExitCodes, `${path}.onExitCodes`, names));
  if (onPodConditions.length) errs.push(...validateOnPodConditions(onPodConditions, `${path}.onPodConditions`));
  if (onExitCodes && onPodConditions.length) errs.push(invalidNoValue(path, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!onExitCodes && !onPodConditions.length) errs.push(invalidNoValue(path, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

/** Validates `spec.podFailurePolicy` of a Job spec found at `path` (`spec` or `spec.jobTemplate.spec`). */
export function validatePodFailurePolicy(specIn: unknown, path: string): Errs {
  const spec = rec(specIn);
  if (!isRecord(spec.podFailurePolicy)) return [];
  const errs: Errs = [];
  const rulesPath = `${path}.podFailurePolicy.rules`;
  const rules = arr(spec.podFailurePolicy.rules);
  if (rules.length > maxRules) errs.push(tooMany(rulesPath, rules.length, maxRules));
  const names = containerNames(spec);
  const ruleNames = new Set<string>();
  rules.forEach((r, i) => {
    const rule = rec(r);
    errs.push(...validateRule(spec, rule, `${rulesPath}[${i}]`, names));
    if (typeof rule.name === 'string') {
      if (ruleNames.has(rule.name)) errs.push(fieldDuplicate(`${rulesPath}[${i}].name`, rule.name));
      ruleNames.add(rule.name);
    }
  });
  return errs;
}

/** spec.podReplacementPolicy: only `Failed` together with a podFailurePolicy. */
export function validatePodReplacementPolicy(specIn: unknown, path: string): Errs {
  const spec = rec(specIn);
  const policy = spec.podReplacementPolicy;
  if (policy === undefined || policy === null) return [];
  const allowed = isRecord(spec.podFailurePolicy) ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
  return allowed.includes(policy as string) ? [] : [fieldNotSupported(`${path}.podReplacementPolicy`, policy, allowed)];
}

// Static checking of a parsed expression against declared variables: undeclared references, undefined fields of
// schema objects, certain operator mismatches, the output type, the variables used, and an estimate of the
// worst-case cost (cel-go's model, simplified: one unit a node, loops times the bound of what they iterate,
// string work a tenth of the string's bound, a regex that times a quarter of the pattern's length; bounds of
// schema values come from decl.ts, as upstream sizes them). Types are dyn wherever the schema or the library does
// not know.
import { compileRegex } from './lib-regex.js';
import { regexCost } from './budget.js';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { globalFuncs, methodFuncs, numericKinds, primitiveKinds } from './check-funcs.js';
import { BOOL, DYN, INT, NULL, STRING, UINT, DOUBLE, BYTES, listOf, maxRequestSizeBytes, optionalOf, typeName, type CelT } from './types.js';
import { optFieldFn, optIndexFn } from './lib-optional.js';

export { maxRequestSizeBytes } from './types.js';
const maxExprDepth = 250;

export interface CheckIssue { id: bigint; message: string }
export interface CheckResult { type: CelT; issues: CheckIssue[]; cost: number; vars: Set<string> }

interface Out { t: CelT; cost: number }

/** The smallest JSON a value of this type serializes to (schema types carry finer bounds from decl.ts). */
function minSize(t: CelT): number {
  return t.k === 'bool' ? 4 : t.k === 'string' || t.k === 'bytes' || t.k === 'object' || t.k === 'list' || t.k === 'map' ? 2 : 1;
}

/** How many elements a list or map of this type can hold (its bound, or what fits in a request, as upstream). */
export function cardinality(t: CelT): number {
  if (t.k === 'list') return t.maxItems ?? Math.floor((maxRequestSizeBytes - 2) / (minSize(t.elem) + 1));
  if (t.k === 'map') return t.maxProperties ?? Math.floor((maxRequestSizeBytes - 2) / (minSize(t.val) + 6));
  if (t.k === 'object') return t.fields.size;
  return Math.floor(maxRequestSizeBytes / 2);
}

function strLen(t: CelT): number {
  if ((t.k === 'string' || t.k === 'bytes') && t.maxLength !== undefined) return t.maxLength;
  return maxRequestSizeBytes;
}

const stringOps = new Set(['contains', 'startsWith', 'endsWith', 'matches', 'find', 'findAll', 'split', 'replace', 'lowerAscii',
  'upperAscii', 'trim', 'indexOf', 'lastIndexOf', 'substring', 'charAt', 'validate', 'quantity', 'isQuantity', 'url', 'isURL']);

const regexFns = new Set(['matches', 'find', 'findAll']);

const sameLength = new Set(['find', 'trim', 'lowerAscii', 'upperAscii', 'substring', 'charAt']);

export function checkExpr(root: Expr, vars: Map<string, CelT>): CheckResult {
  const issues: CheckIssue[] = [];
  const used = new Set<string>();
  const issue = (e: Expr, message: string) => issues.push({ id: e.id, message });

  function qualifiedName(e: Expr | undefined, scope: Map<string, CelT>): string | undefined {
    if (!e) return undefined;
    if (e.exprKind.case === 'identExpr') return scope.has(e.exprKind.value.name) ? undefined : e.exprKind.value.name;
    if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly) {
      const inner = qualifiedName(e.exprKind.value.operand, scope);
      return inner === undefined ? undefined : `${inner}.${e.exprKind.value.field}`;
    }
    return undefined;
  }

  function selectType(e: Expr, operand: CelT, field: string): CelT {
    switch (operand.k) {
      case 'object': {
        const f = operand.fields.get(field);
        if (!f) issue(e, `undefined field '${field}'`);
        return f ?? DYN;
      }
      case 'map':
        return operand.val;
      case 'dyn':
        return DYN;
      default:
        issue(e, `type '${typeName(operand)}' does not support field selection`);
        return DYN;
    }
  }

  function walk(e: Expr, scope: Map<string, CelT>, depth: number): Out {
    if (depth > maxExprDepth) {
      issue(e, 'expression nested too deeply');
      return { t: DYN, cost: 0 };
    }
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        const t: CelT = c.case === 'boolValue' ? BOOL : c.case === 'int64Value' ? INT : c.case === 'uint64Value' ? UINT
          : c.case === 'doubleValue' ? DOUBLE : c.case === 'stringValue' ? { k: 'string', maxLength: c.value.length }
            : c.case === 'bytesValue' ? BYTES : c.case === 'nullValue' ? NULL : DYN;
        return { t, cost: 0 };
      }
      case 'identExpr': {
        const t = scope.get(k.value.name);
        if (!t) {
          issue(e, `undeclared reference to '${k.value.name}' (in container '')`);
          return { t: DYN, cost: 1 };
        }
        if (vars.has(k.value.name) && scope.get(k.value.name) === vars.get(k.value.name)) used.add(k.value.name);
        return { t, cost: 1 };
      }
      case 'selectExpr': {
        const q = qualifiedName(e, scope);
        if (q !== undefined && scope.has(q)) return { t: scope.get(q)!, cost: 1 };
        const op = walk(k.value.operand!, scope, depth + 1);
        const t = selectType(e, op.t, k.value.field);
        return { t: k.value.testOnly ? BOOL : t, cost: op.cost + 1 };
      }
      case 'callExpr':
        return call(e, k.value.function, k.value.target, k.value.args, scope, depth);
      case 'listExpr': {
        let cost = 0;
        let elem: CelT | undefined;
        for (const x of k.value.elements) {
          const o = walk(x, scope, depth + 1);
          cost += o.cost;
          elem = elem === undefined || elem.k === o.t.k ? o.t : DYN;
        }
        return { t: listOf(elem ?? DYN, k.value.elements.length), cost: cost + 1 };
      }
      case 'structExpr': {
        let cost = 1;
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') cost += walk(en.keyKind.value, scope, depth + 1).cost;
          if (en.value) cost += walk(en.value, scope, depth + 1).cost;
        }
        return { t: k.value.messageName ? DYN : { k: 'map', key: DYN, val: DYN, maxProperties: k.value.entries.length }, cost };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = walk(c.iterRange!, scope, depth + 1);
        const init = walk(c.accuInit!, scope, depth + 1);
        const n = cardinality(range.t);
        const iterT = range.t.k === 'list' ? range.t.elem : range.t.k === 'map' ? { k: 'string', maxLength: Math.floor(maxRequestSizeBytes / Math.max(1, n)) } as CelT : DYN;
        // A list accumulator grows with the range (map, filter); cel.bind's (iterVar #unused, no range) is its value.
        const accuT = init.t.k === 'list' && c.iterVar !== '#unused' ? listOf(DYN, n) : init.t;
        const inner = new Map(scope);
        inner.set(c.accuVar, accuT);
        inner.set(c.iterVar, iterT);
        if (c.iterVar2) inner.set(c.iterVar2, range.t.k === 'map' ? range.t.val : iterT);
        const cond = walk(c.loopCondition!, inner, depth + 1);
        const step = walk(c.loopStep!, inner, depth + 1);
        const resScope = new Map(scope);
        resScope.set(c.accuVar, accuT);
        const res = walk(c.result!, resScope, depth + 1);
        let t = res.t;
        if (t.k === 'list' && step.t.k === 'list' && step.t.elem.k !== 'dyn') t = listOf(step.t.elem, n);
        return { t, cost: range.cost + init.cost + n * (cond.cost + step.cost) + res.cost };
      }
      default:
        return { t: DYN, cost: 1 };
    }
  }

  function call(e: Expr, fn: string, target: Expr | undefined, argExprs: Expr[], scope: Map<string, CelT>, depth: number): Out {
    const q = qualifiedName(target, scope);
    if (target && q !== undefined && globalFuncs.has(`${q}.${fn}`)) {
      const args = argExprs.map((a) => walk(a, scope, depth + 1));
      const t = globalFuncs.get(`${q}.${fn}`)!(args.map((a) => a.t));
      return { t, cost: 1 + args.reduce((s, a) => s + a.cost, 0) };
    }
    const tgt = target ? walk(target, scope, depth + 1) : undefined;
    const args = argExprs.map((a) => walk(a, scope, depth + 1));
    let cost = (tgt?.cost ?? 0) + args.reduce((s, a) => s + a.cost, 0);
    const logical = fn === '_&&_' || fn === '_||_' || fn === '_?_:_' || fn === '@not_strictly_false';
    if (!logical) cost += 1;
    const types = args.map((a) => a.t);
    if (tgt && (fn === optFieldFn || fn === optIndexFn)) {
      const base = tgt.t.k === 'optional' ? tgt.t.inner : tgt.t;
      const lit = argExprs[0]?.exprKind;
      let inner: CelT = DYN;
      if (fn === optFieldFn && lit?.case === 'constExpr' && lit.value.constantKind.case === 'stringValue') {
        inner = base.k === 'object' ? selectType(e, base, lit.value.constantKind.value) : base.k === 'map' ? base.val : DYN;
      } else if (fn === optIndexFn) inner = base.k === 'list' ? base.elem : base.k === 'map' ? base.val : DYN;
      return { t: optionalOf(inner), cost };
    }
    const rule = tgt ? methodFuncs.get(fn) ?? (fn === 'matches' ? globalFuncs.get(fn) : undefined) : globalFuncs.get(fn);
    if (!rule) {
      issue(e, `undeclared reference to '${fn}' (in container '')`);
      return { t: DYN, cost };
    }
    // A constant pattern is compiled when the program is (as cel-go's regex optimisation does): a bad one fails here.
    if (fn === 'matches' || fn === 'find' || fn === 'findAll') {
      const lit = argExprs[tgt || fn !== 'matches' ? 0 : 1]?.exprKind;
      if (lit?.case === 'constExpr' && lit.value.constantKind.case === 'stringValue') {
        try {
          compileRegex(lit.value.constantKind.value);
        } catch (err) {
          issue(e, err instanceof Error ? err.message : String(err));
        }
      }
    }
    if (types.length === 2 && ['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '_+_', '_-_', '_*_', '_/_', '_%_'].includes(fn)) {
      const [l, r] = types;
      const ordering = fn !== '_==_' && fn !== '_!=_' && !['_+_', '_-_', '_*_', '_/_', '_%_'].includes(fn);
      const crossNumeric = ordering && numericKinds.has(l.k) && numericKinds.has(r.k);
      if (primitiveKinds.has(l.k) && primitiveKinds.has(r.k) && l.k !== r.k && !crossNumeric) {
        issue(e, `found no matching overload for '${fn}' applied to '(${typeName(l)}, ${typeName(r)})'`);
      }
    }
    if (regexFns.has(fn) && types.length) {
      // The string and the pattern: the target and first argument, or (global matches) the two arguments.
      const [str, pattern] = tgt ? [tgt.t, types[0]!] : [types[0]!, types[1] ?? STRING];
      cost += regexCost(strLen(str), strLen(pattern)) - 1;
    } else if (tgt && (fn === 'startsWith' || fn === 'endsWith') && types[0]) cost += Math.ceil(strLen(types[0]) / 10);
    else if (tgt && stringOps.has(fn)) cost += Math.ceil(strLen(tgt.t) / 10);
    else if (!tgt && stringOps.has(fn) && types[0]) cost += Math.ceil(strLen(types[0]) / 10);
    if ((fn === '_==_' || fn === '_!=_') && types[0]) {
      const t0 = types[0];
      if (t0.k === 'string' || t0.k === 'bytes') cost += Math.ceil(Math.min(strLen(t0), strLen(types[1] ?? t0)) / 10);
      else if (t0.k === 'list' || t0.k === 'map') cost += Math.min(cardinality(t0), cardinality(types[1] ?? t0));
    }
    if (fn === '@in' && types[1]) cost += cardinality(types[1]);
    if (tgt && ['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join'].includes(fn) && tgt.t.k === 'list') cost += cardinality(tgt.t);
    if (fn === '_+_' && types[0]?.k === 'string') cost += Math.ceil((strLen(types[0]) + strLen(types[1] ?? STRING)) / 10);
    let t = rule(types, tgt?.t);
    // Strings derived from a bounded string keep its bound (find, trim, substring...).
    if (tgt && t.k === 'string' && tgt.t.k === 'string' && tgt.t.maxLength !== undefined && sameLength.has(fn)) t = { k: 'string', maxLength: tgt.t.maxLength };
    return { t, cost };
  }

  const out = walk(root, vars, 0);
  return { type: out.t, issues, cost: out.cost, vars: used };
}

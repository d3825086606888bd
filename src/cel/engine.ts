// The CEL engine: compile an expression once against declared variables (parse, optional-syntax rewrite,
// static check, cost estimate, plan), cache the result in a bounded LRU keyed by expression and environment,
// and evaluate with a metered activation. Heavy: import it through `loadCel()` (src/cel/index.ts).
// Cost is counted, not timed (src/cel/budget.ts): each comprehension iteration charges the nodes its condition
// and step evaluate (identifiers, selections and calls one unit each, as the static estimate in check.ts counts
// them, so the actual cost never exceeds the estimate), and library functions charge their own work.
import { celEnv, isCelError, parse, plan, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { expandBind } from './bind.js';
import { checkExpr } from './check.js';
import { costLimitExceeded, charge, evaluationTimedOut, metered } from './budget.js';
import { formatCompileError, type SourceIssue } from './errors.js';
import { formatFuncs } from './lib-format.js';
import { listFuncs } from './lib-lists.js';
import { netFuncs } from './lib-net.js';
import { optionalFuncs } from './lib-optional.js';
import { quantityFuncs } from './lib-quantity.js';
import { regexFuncs } from './lib-regex.js';
import { semverFuncs } from './lib-semver.js';
import { urlFuncs } from './lib-url.js';
import { authzFuncs } from './lib-authz.js';
import { Lru } from './lru.js';
import { rewriteOptionalSyntax } from './rewrite.js';
import { celFunc, CelScalar } from '@bufbuild/cel';
import type { CelT } from './types.js';

/** Upstream's per-call run-time limit (k8s.io/apiserver/pkg/apis/cel PerCallLimit). */
export const perCallLimit = 1_000_000;
/** Longest expression accepted (upstream caps rules at 5 MiB of schema; one rule this long is abuse). */
export const maxExpressionLength = 100_000;

const tickFn = '@bonsai_tick';
const env = celEnv({
  funcs: [
    ...strings, ...listFuncs, ...regexFuncs, ...quantityFuncs, ...netFuncs, ...urlFuncs, ...formatFuncs, ...optionalFuncs,
    ...semverFuncs, ...authzFuncs,
    celFunc(tickFn, [CelScalar.DYN, CelScalar.INT], CelScalar.DYN, (v, n) => { charge(Number(n)); return v; }),
  ],
});

export interface Program {
  readonly source: string;
  /** The static type of the result (dyn where unknown). */
  readonly outputType: CelT;
  /** The estimated worst-case cost of one evaluation. */
  readonly estimatedCost: number;
  /** Declared variables the expression reads. */
  readonly usesVars: ReadonlySet<string>;
  eval(activation: Record<string, CelValue>, limit?: number): EvalResult;
}

/** `costExceeded`: the counted cost passed the limit; `timedOut`: the wall-clock guard cancelled it (budget.ts). */
export type EvalResult = { ok: true; value: CelValue; cost: number } | { ok: false; error: string; costExceeded: boolean; timedOut?: boolean; cost: number };
export type CompileResult = { ok: true; program: Program } | { ok: false; error: string };

const cache = new Lru<string, CompileResult>(2048);

/** Library options beyond the base environment. */
export interface CompileOptions {
  /** Expand `cel.bind(name, init, expr)` (cel-go's ext.Bindings). */
  bind?: boolean;
}

/** Compiles `source` with the given variable declarations; `envKey` identifies the declarations (and options) for caching. */
export function compile(source: string, vars: Map<string, CelT>, envKey: string, options: CompileOptions = {}): CompileResult {
  const key = `${envKey}\u0000${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const r = compileUncached(source, vars, options);
  cache.set(key, r);
  return r;
}

function compileUncached(source: string, vars: Map<string, CelT>, options: CompileOptions): CompileResult {
  if (source.length > maxExpressionLength) return { ok: false, error: `expression of ${source.length} characters exceeds the limit of ${maxExpressionLength}` };
  const text = rewriteOptionalSyntax(source);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(text);
  } catch (e) {
    const loc = (e as { location?: { start?: { offset?: number } } }).location?.start?.offset ?? 0;
    const msg = e instanceof Error ? e.message.replace(/^<input>:\d+:\d+: /, '') : String(e);
    return { ok: false, error: formatCompileError(source, [{ offset: loc, message: `Syntax error: ${msg}` }]) };
  }
  const bindError = options.bind ? expandBind(parsed.expr!) : undefined;
  if (bindError) return { ok: false, error: formatCompileError(source, [{ offset: 0, message: bindError }]) };
  const checked = checkExpr(parsed.expr, vars);
  if (checked.issues.length) {
    const positions = parsed.sourceInfo?.positions ?? {};
    const issues: SourceIssue[] = checked.issues.map((i) => ({ offset: Number(positions[Number(i.id)] ?? 0), message: i.message }));
    return { ok: false, error: formatCompileError(source, issues) };
  }
  addTicks(parsed.expr);
  const planned = plan(env, parsed.expr);
  const program: Program = {
    source, outputType: checked.type, estimatedCost: checked.cost, usesVars: checked.vars,
    eval(activation, limit = perCallLimit) {
      const m = metered(limit, (): CelValue | Error => {
        try {
          return planned(activation as never);
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e));
        }
      });
      const r = m.result;
      if (m.exhausted) return { ok: false, error: costLimitExceeded, costExceeded: true, cost: m.cost };
      if (m.timedOut) return { ok: false, error: evaluationTimedOut, costExceeded: false, timedOut: true, cost: m.cost };
      if (isCelError(r) || r instanceof Error) return { ok: false, error: r.message, costExceeded: false, cost: m.cost };
      return { ok: true, value: r, cost: m.cost };
    },
  };
  return { ok: true, program };
}

// Counts what one iteration of a comprehension evaluates: identifiers, selections and calls (not the logical
// operators, which cel-go does not charge), without descending into a nested comprehension's condition and
// step, which that comprehension charges itself each of its own iterations. Constants cost nothing.
function iterationCost(roots: (Expr | undefined)[]): number {
  let n = 0;
  const stack: { e: Expr; depth: number }[] = roots.filter((e): e is Expr => !!e).map((e) => ({ e, depth: 0 }));
  while (stack.length) {
    const { e, depth } = stack.pop()!;
    if (depth > 300) continue;
    const push = (x: Expr | undefined) => { if (x) stack.push({ e: x, depth: depth + 1 }); };
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr': n++; break;
      case 'selectExpr': n++; push(k.value.operand); break;
      case 'callExpr':
        if (!logicalFns.has(k.value.function)) n++;
        push(k.value.target); k.value.args.forEach(push);
        break;
      case 'listExpr': n++; k.value.elements.forEach(push); break;
      case 'structExpr': n++; for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') push(en.keyKind.value); push(en.value); } break;
      case 'comprehensionExpr': [k.value.iterRange, k.value.accuInit, k.value.result].forEach(push); break;
      default: break;
    }
  }
  return Math.max(1, n);
}
const logicalFns = new Set(['_&&_', '_||_', '_?_:_', '@not_strictly_false']);

// Wraps every comprehension's loop condition in the metering function, so each iteration is counted at what
// its condition and step evaluate (computed before the wrapping, from the original nodes).
function addTicks(root: Expr): void {
  let nextId = 1n << 40n;
  const stack: { e: Expr; depth: number }[] = [{ e: root, depth: 0 }];
  while (stack.length) {
    const { e, depth } = stack.pop()!;
    if (depth > 300) continue;
    const k = e.exprKind;
    const push = (x: Expr | undefined) => { if (x) stack.push({ e: x, depth: depth + 1 }); };
    switch (k.case) {
      case 'selectExpr': push(k.value.operand); break;
      case 'callExpr': push(k.value.target); k.value.args.forEach(push); break;
      case 'listExpr': k.value.elements.forEach(push); break;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') push(en.keyKind.value); push(en.value); } break;
      case 'comprehensionExpr': {
        const c = k.value;
        [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].forEach(push);
        const cond = c.loopCondition!;
        const cost = {
          $typeName: 'cel.expr.Expr', id: nextId++,
          exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value: BigInt(iterationCost([cond, c.loopStep])) } } },
        } as Expr;
        c.loopCondition = {
          $typeName: 'cel.expr.Expr', id: nextId++,
          exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: tickFn, args: [cond, cost] } },
        } as Expr;
        break;
      }
      default: break;
    }
  }
}

// The CEL engine admission uses (ValidatingAdmissionPolicies, webhook matchConditions), behind one small interface so
// that the project's own Kubernetes CEL library (src/cel/) can replace this direct use of @bufbuild/cel later.
// Loaded on first use: nothing here may be imported eagerly at server start (see loadCel).
import { maxObjectDepth } from '../../machinery/depth-limits.js';

/** A compiled expression; `evaluate` never throws. */
export interface CelProgram {
  evaluate(vars: Record<string, unknown>): { value: unknown } | { error: string };
}

export interface CelCompiler {
  /** Compiles `expression` against the declared variable names; errors read as cel-go's (`compilation failed: ERROR: ...`). */
  compile(expression: string, variables: readonly string[]): { program: CelProgram } | { error: string };
}

type CelModule = typeof import('@bufbuild/cel');

let compiler: CelCompiler | undefined;
let loading: Promise<CelCompiler> | undefined;

/** Loads the engine (once); later calls resolve at once. */
export function loadCel(): Promise<CelCompiler> {
  if (compiler) return Promise.resolve(compiler);
  loading ??= import('@bufbuild/cel').then((m) => (compiler = makeCompiler(m)));
  return loading;
}

/** The engine when it has been loaded, for synchronous callers (validation of a policy after its def's `load`). */
export function loadedCel(): CelCompiler | undefined {
  return compiler;
}

/** A compiled program's input: JSON integers become CEL ints, objects become maps (no prototype keys), depth-limited. */
export function toCel(v: unknown, depth = 0): unknown {
  if (depth > maxObjectDepth) throw new Error('object nests too deeply for CEL evaluation');
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map((x) => toCel(x, depth + 1));
  if (v !== null && typeof v === 'object') {
    if (v instanceof Map || v instanceof Uint8Array || typeof (v as { then?: unknown }).then === 'function') return v;
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) if (x !== undefined) m.set(k, toCel(x, depth + 1));
    return m;
  }
  return v;
}

/** A result back to plain JS: CEL ints to numbers (when safe), everything else as is. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  return v;
}

interface Ident { name: string; id: bigint }

/** Every identifier the parsed expression reads, and the names comprehensions bind. */
function identifiers(root: unknown): { idents: Ident[]; bound: Set<string> } {
  const idents: Ident[] = [];
  const bound = new Set<string>();
  const stack: Array<{ node: unknown; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object' || depth > 200) continue;
    const kind = (node as { exprKind?: { case?: string; value?: Record<string, unknown> } }).exprKind;
    if (kind?.case === 'identExpr' && kind.value) idents.push({ name: String(kind.value.name), id: BigInt(String((node as { id?: unknown }).id ?? 0)) });
    if (kind?.case === 'comprehensionExpr' && kind.value) {
      for (const k of ['iterVar', 'iterVar2', 'accuVar']) if (typeof kind.value[k] === 'string' && kind.value[k]) bound.add(kind.value[k] as string);
    }
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
  }
  return { idents, bound };
}

/** `<input>:line:col` of an expression node, as cel-go prints locations (1-based line, 1-based column). */
function location(source: string, offset: number | undefined): { line: number; col: number; text: string } {
  const at = offset ?? 0;
  const before = source.slice(0, at);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const text = source.slice(lineStart).split('\n')[0];
  return { line, col: at - lineStart + 1, text };
}

function makeCompiler(cel: CelModule): CelCompiler {
  const envs = new Map<string, ReturnType<CelModule['celEnv']>>();
  const envFor = (vars: readonly string[]) => {
    const key = vars.join(',');
    let env = envs.get(key);
    if (!env) {
      const decl: Record<string, typeof cel.CelScalar.DYN> = Object.create(null) as Record<string, typeof cel.CelScalar.DYN>;
      for (const v of vars) decl[v] = cel.CelScalar.DYN;
      env = cel.celEnv({ variables: decl });
      envs.set(key, env);
    }
    return env;
  };
  return {
    compile(expression, variables) {
      let parsed: ReturnType<CelModule['parse']>;
      try {
        parsed = cel.parse(expression);
      } catch (e) {
        return { error: `compilation failed: ERROR: ${e instanceof Error ? e.message : String(e)}` };
      }
      const { idents, bound } = identifiers(parsed.expr);
      const declared = new Set(variables);
      for (const id of idents) {
        if (declared.has(id.name) || bound.has(id.name)) continue;
        const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
        const loc = location(expression, positions[String(id.id)]);
        return {
          error: `compilation failed: ERROR: <input>:${loc.line}:${loc.col}: undeclared reference to '${id.name}' (in container '')\n | ${loc.text}\n | ${'.'.repeat(loc.col - 1)}^`,
        };
      }
      let run: (vars: Record<string, unknown>) => unknown;
      try {
        const planned = cel.plan(envFor(variables), parsed) as (ctx: Record<string, unknown>) => unknown;
        run = planned;
      } catch (e) {
        return { error: `compilation failed: ERROR: ${e instanceof Error ? e.message : String(e)}` };
      }
      return {
        program: {
          evaluate(vars) {
            try {
              const r = run(vars);
              if (cel.isCelError(r)) return { error: r.message };
              return { value: r };
            } catch (e) {
              return { error: e instanceof Error ? e.message : String(e) };
            }
          },
        },
      };
    },
  };
}

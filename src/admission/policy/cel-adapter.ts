// The CEL engine admission uses (ValidatingAdmissionPolicies, webhook matchConditions): the project's Kubernetes CEL
// (src/cel/: Kubernetes' libraries, cost limits, cel-go's error texts) behind one small interface. Loaded on first
// use: nothing here may be imported eagerly at server start (see loadCel).
import { maxObjectDepth } from '../../machinery/depth-limits.js';
import { loadCel as loadEngine, type CelEngine } from '../../cel/index.js';
import { DYN, type CelT } from '../../cel/types.js';
import type { AdmissionAttributes } from '../types.js';

/** A compiled expression; `evaluate` never throws. */
export interface CelProgram {
  evaluate(vars: Record<string, unknown>): { value: unknown } | { error: string };
}

export interface CelCompiler {
  /** Compiles `expression` against the declared variable names; errors read as cel-go's (`compilation failed: ERROR: ...`). */
  compile(expression: string, variables: readonly string[]): { program: CelProgram } | { error: string };
}

let engine: CelEngine | undefined;
let compiler: CelCompiler | undefined;
let loading: Promise<CelCompiler> | undefined;

/** Loads the engine (once); later calls resolve at once. */
export function loadCel(): Promise<CelCompiler> {
  if (compiler) return Promise.resolve(compiler);
  loading ??= loadEngine().then((e) => {
    engine = e;
    return (compiler = makeCompiler(e));
  });
  return loading;
}

/** The engine when it has been loaded, for synchronous callers (validation of a policy after its def's `load`). */
export function loadedCel(): CelCompiler | undefined {
  return compiler;
}

/** Marks a JSON value for evaluation: converted (depth-limited, prototype keys as plain keys) when a program runs. */
export function toCel(v: unknown, depth = 0): unknown {
  if (depth > maxObjectDepth) throw new Error('object nests too deeply for CEL evaluation');
  return new Json(v);
}

/**
 * The `authorizer` variable of a request: checks (`authorizer.group(g).resource(r).check(verb).allowed()`) answered
 * by the server's authorization as the request's user. Null while the engine is not loaded or there is no
 * authorization (a bare registry in tests).
 */
export function authorizerFor(a: AdmissionAttributes): unknown {
  const authz = a.registry.authorization;
  if (!engine || !authz) return null;
  return new Raw(engine.authorizerValue((r) => {
    const res = authz.authorize({
      user: { username: r.username, groups: r.groups, uid: r.uid, extra: r.extra }, verb: r.verb ?? '',
      resourceRequest: r.path === undefined, path: r.path ?? '', apiGroup: r.group ?? '', apiVersion: '*',
      namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
    });
    return { decision: res.decision, reason: res.reason };
  }, a.user));
}

/** A CEL value made by the engine, bound as it is. */
class Raw {
  constructor(readonly value: unknown) {}
}

/** A JSON value bound to a variable; converted to a CEL value by the engine as the program runs. */
class Json {
  constructor(readonly value: unknown) {}
}

/** A result back to plain JS (CEL ints to numbers when safe, maps to objects). */
export function fromCel(v: unknown): unknown {
  return engine ? engine.fromCel(v as never) : v;
}

/** Results of earlier expressions (a policy's `variables`) as JSON again, to be bound as one map. */
function fromResults(cel: CelEngine, results: Map<unknown, unknown>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of results) out[String(k)] = cel.fromCel(v as never);
  return out;
}

function makeCompiler(cel: CelEngine): CelCompiler {
  return {
    compile(expression, variables) {
      const vars = new Map<string, CelT>(variables.map((v) => [v, DYN]));
      const r = cel.compile(expression, vars, `admission:${variables.join(',')}`);
      if (!r.ok) return { error: r.error.startsWith('compilation failed: ') ? r.error : `compilation failed: ${r.error}` };
      const program = r.program;
      return {
        program: {
          evaluate(input) {
            try {
              const activation: Record<string, ReturnType<CelEngine['toCelValue']>> = Object.create(null) as Record<string, ReturnType<CelEngine['toCelValue']>>;
              for (const [k, v] of Object.entries(input)) activation[k] = v instanceof Raw ? (v.value as ReturnType<CelEngine['toCelValue']>) : cel.toCelValue(v instanceof Json ? v.value : v instanceof Map ? fromResults(cel, v) : v, undefined);
              const out = program.eval(activation);
              return out.ok ? { value: out.value } : { error: out.error };
            } catch (e) {
              return { error: e instanceof Error ? e.message : String(e) };
            }
          },
        },
      };
    },
  };
}

// cel-go's `cel.bind(name, init, expr)` (ext.Bindings): a macro that names a value once for use in an expression,
// expanded after parsing into the comprehension cel-go builds (no iterations; the accumulator is the binding).
// Opt-in per environment: DRA device selectors declare it, other Kubernetes environments do not.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

const maxDepth = 300;

/** Expands every `cel.bind` call in place; returns an error for a malformed one. */
export function expandBind(root: Expr): string | undefined {
  let nextId = 1n << 41n;
  const mk = (exprKind: Expr['exprKind']): Expr => ({ $typeName: 'cel.expr.Expr', id: nextId++, exprKind }) as Expr;
  const stack: { e: Expr; depth: number }[] = [{ e: root, depth: 0 }];
  while (stack.length) {
    const { e, depth } = stack.pop()!;
    if (depth > maxDepth) continue;
    const push = (x: Expr | undefined) => { if (x) stack.push({ e: x, depth: depth + 1 }); };
    const k = e.exprKind;
    if (k.case === 'callExpr' && k.value.function === 'bind' && k.value.target?.exprKind.case === 'identExpr' && k.value.target.exprKind.value.name === 'cel') {
      const [name, init, body] = k.value.args;
      if (k.value.args.length !== 3 || name?.exprKind.case !== 'identExpr') return 'cel.bind() variable name must be a simple identifier';
      const v = name.exprKind.value.name;
      e.exprKind = {
        case: 'comprehensionExpr',
        value: {
          $typeName: 'cel.expr.Expr.Comprehension', iterVar: '#unused', iterVar2: '', accuVar: v,
          iterRange: mk({ case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] } }),
          accuInit: init,
          loopCondition: mk({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } } }),
          loopStep: mk({ case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: v } }),
          result: body,
        },
      } as Expr['exprKind'];
      push(init);
      push(body);
      continue;
    }
    switch (k.case) {
      case 'selectExpr': push(k.value.operand); break;
      case 'callExpr': push(k.value.target); k.value.args.forEach(push); break;
      case 'listExpr': k.value.elements.forEach(push); break;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') push(en.keyKind.value); push(en.value); } break;
      case 'comprehensionExpr': [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].forEach(push); break;
      default: break;
    }
  }
  return undefined;
}

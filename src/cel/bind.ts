// cel-go's ext.Bindings macro, for the environments that have it (DRA device selectors): `cel.bind(name, init,
// body)` becomes a comprehension over an empty list whose accumulator, `name`, holds `init` while `body` is the
// result, so that `init` is evaluated once. Expanded on the parsed tree, before the check.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** cel-go's text when the first argument is not a plain name. */
export const bindNameError = 'cel.bind() variable names must be simple identifiers';

let nextId = 1n << 41n;
const node = (exprKind: unknown): Expr => ({ $typeName: 'cel.expr.Expr', id: nextId++, exprKind } as Expr);

function isBind(e: Expr): boolean {
  const k = e.exprKind;
  if (k.case !== 'callExpr' || k.value.function !== 'bind' || k.value.args.length !== 3) return false;
  const t = k.value.target?.exprKind;
  return t?.case === 'identExpr' && t.value.name === 'cel';
}

/** Expands every `cel.bind` in place; answers the id of a bind whose name is not an identifier, if any. */
export function expandBindings(root: Expr): { badId?: bigint } {
  const stack: { e: Expr; depth: number }[] = [{ e: root, depth: 0 }];
  while (stack.length) {
    const { e, depth } = stack.pop()!;
    if (depth > 300) continue;
    const push = (x: Expr | undefined) => { if (x) stack.push({ e: x, depth: depth + 1 }); };
    if (isBind(e)) {
      const [name, init, body] = (e.exprKind.value as { args: Expr[] }).args;
      if (name.exprKind.case !== 'identExpr') return { badId: name.id };
      const accuVar = name.exprKind.value.name;
      e.exprKind = {
        case: 'comprehensionExpr',
        value: {
          $typeName: 'cel.expr.Expr.Comprehension', iterVar: '#unused', iterVar2: '', accuVar,
          iterRange: node({ case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] } }),
          accuInit: init,
          loopCondition: node({ case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } } }),
          loopStep: node({ case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: accuVar } }),
          result: body,
        },
      } as Expr['exprKind'];
    }
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': push(k.value.operand); break;
      case 'callExpr': push(k.value.target); k.value.args.forEach(push); break;
      case 'listExpr': k.value.elements.forEach(push); break;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') push(en.keyKind.value); push(en.value); } break;
      case 'comprehensionExpr': [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].forEach(push); break;
      default: break;
    }
  }
  return {};
}

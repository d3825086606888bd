// No promise is dropped in src: a call whose value is a Promise, written as a statement of its own, must be awaited,
// returned, handled (`.catch`, or `.then` with a rejection handler) or marked `void` on purpose. A dropped promise that
// rejects is an unhandled rejection, which stops the process. In-process writes return promises (a create may wait
// for admission webhooks), so this is where a missing `await` would hide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { projectRoot, sourceFiles } from '../helpers/source-files.js';

const repoRoot = projectRoot();

function isPromise(t: ts.Type): boolean {
  if (t.isUnion()) return t.types.some(isPromise);
  return t.getSymbol()?.getName() === 'Promise';
}

/** A chain with a `.catch(h)` or `.then(ok, h)` link: the rejection of what comes before it is handled. */
function handled(call: ts.CallExpression): boolean {
  for (let e: ts.Expression = call; ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression); e = e.expression.expression) {
    const method = e.expression.name.text;
    if (method === 'catch' || (method === 'then' && e.arguments.length >= 2)) return true;
  }
  return false;
}

test('no call returning a Promise is dropped in src', () => {
  const src = join(repoRoot, 'src');
  const program = ts.createProgram(sourceFiles(src), {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true, skipLibCheck: true, resolveJsonModule: true, esModuleInterop: true, types: ['node'], noEmit: true,
  });
  const checker = program.getTypeChecker();
  const dropped: string[] = [];
  let statements = 0;
  for (const sf of program.getSourceFiles()) {
    if (!sf.fileName.startsWith(src)) continue;
    const visit = (n: ts.Node): void => {
      if (ts.isExpressionStatement(n) && ts.isCallExpression(n.expression)) {
        statements++;
        const call = n.expression;
        if (!handled(call) && isPromise(checker.getTypeAtLocation(call))) {
          const { line } = sf.getLineAndCharacterOfPosition(call.getStart(sf));
          dropped.push(`${relative(repoRoot, sf.fileName)}:${line + 1}: ${call.getText(sf).slice(0, 80).replace(/\s+/g, ' ')}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  assert.ok(statements > 1000, `only ${statements} call statements were seen: the program did not load`);
  assert.deepEqual(dropped, [], 'await it, return it, handle its rejection, or mark it `void` where it cannot reject');
});

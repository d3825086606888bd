// The typed client keeps casts out of src: `as unknown as` (a cast the compiler cannot check at all) stays under the
// issue's bound of 20 across every source file. Each one left is at a boundary the types cannot describe (a CEL value
// made from a JSON map, a library's untyped field, a JSON null where a Go struct serializes as null).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// Run from dist/test/unit.
const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');

function sourceFiles(dir: string, depth = 0): string[] {
  if (depth > 10) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p, depth + 1));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

test('fewer than 20 unchecked casts (`as unknown as`) in src', () => {
  const files = sourceFiles(src);
  assert.ok(files.length > 500, `only ${files.length} source files found under ${src}`);
  const sites: string[] = [];
  for (const f of files) {
    readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
      if (/\bas unknown as\b/.test(line)) sites.push(`${relative(src, f)}:${i + 1}`);
    });
  }
  assert.ok(sites.length < 20, `${sites.length} casts:\n${sites.join('\n')}`);
});

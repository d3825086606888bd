// bench/perf-doc.ts: `npm run bench` replaces only the marked sections of docs/performance.md, keeping the rest.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beginMarker, endMarker, perfDocPath, replaceSection, sectionBody, writeSection, type BenchSection } from '../../bench/perf-doc.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const realDoc = join(repo, 'docs', 'performance.md');

/** The text outside the section's markers, and the text between them. */
function split(doc: string, section: BenchSection): { outside: string; inside: string } {
  const b = doc.indexOf(beginMarker(section)) + beginMarker(section).length;
  const e = doc.indexOf(endMarker(section));
  assert.ok(b > beginMarker(section).length - 1 && e > b, `markers of ${section}`);
  return { outside: doc.slice(0, b) + doc.slice(e), inside: doc.slice(b, e) };
}

const info = { date: new Date('2026-12-04T12:00:00Z'), nodeVersion: 'v20.99.0', cpus: 2, cpuModel: 'Test CPU', loadAtStart: '0.10 0.20 0.30', loadAtEnd: '1.50 1.00 0.50', seconds: 42 };

describe('docs/performance.md written by the bench', () => {
  it('is the page the bench writes, and holds both sections with the current figures', () => {
    assert.equal(perfDocPath, realDoc);
    const doc = readFileSync(realDoc, 'utf8');
    assert.match(split(doc, 'everyday').inside, /\| 1\. start-up to first \/healthz 200/);
    assert.match(split(doc, 'scale').inside, /\| S1\. 5,000 nodes Ready/);
  });

  it('replaces each marked section of a copy and keeps everything else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonsai-perf-doc-'));
    try {
      const copy = join(dir, 'performance.md');
      copyFileSync(realDoc, copy);
      const before = readFileSync(copy, 'utf8');
      const table = '| Figure | Bonsai | Baseline | Ratio / target |\n|---|---|---|---|\n| 1. new figure | 1 ms | 2 ms | 0.50x baseline |';
      writeSection(copy, 'everyday', sectionBody('everyday', info, ['Baseline: the note.'], table));
      const afterEveryday = readFileSync(copy, 'utf8');
      assert.equal(split(afterEveryday, 'everyday').outside, split(before, 'everyday').outside);
      const inside = split(afterEveryday, 'everyday').inside;
      for (const part of ['2026-12-04 12:00 UTC', 'node v20.99.0', '2 CPUs (Test CPU)', 'load average 0.10 0.20 0.30 at the start and 1.50 1.00 0.50 at the end', 'Baseline: the note.', '| 1. new figure | 1 ms |']) {
        assert.ok(inside.includes(part), `everyday section has ${part}`);
      }
      assert.doesNotMatch(inside, /start-up to first \/healthz/);
      assert.equal(split(afterEveryday, 'scale').inside, split(before, 'scale').inside);

      writeSection(copy, 'scale', sectionBody('scale', info, [], '| S1. new | 1 s | - | met |'));
      const afterScale = readFileSync(copy, 'utf8');
      assert.equal(split(afterScale, 'scale').outside, split(afterEveryday, 'scale').outside);
      assert.match(split(afterScale, 'scale').inside, /^\nMeasured by `npm run bench -- scale` on 2026-12-04 12:00 UTC[^\n]*\n\n\| S1\. new \| 1 s \| - \| met \|\n$/);
      // Writing the same body again changes nothing.
      writeSection(copy, 'scale', sectionBody('scale', info, [], '| S1. new | 1 s | - | met |'));
      assert.equal(readFileSync(copy, 'utf8'), afterScale);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a page whose markers are missing, repeated or out of order, and leaves the file alone', () => {
    const b = beginMarker('scale');
    const e = endMarker('scale');
    for (const doc of ['no markers', `${b}\nx\n`, `${e}\nx\n${b}\n`, `${b}\n${e}\n${b}\n${e}\n`]) {
      assert.throws(() => replaceSection(doc, 'scale', 'body'), /expected one <!-- bench:scale:begin -->/);
    }
    const dir = mkdtempSync(join(tmpdir(), 'bonsai-perf-doc-'));
    try {
      const file = join(dir, 'performance.md');
      writeFileSync(file, 'no markers\n');
      assert.throws(() => writeSection(file, 'everyday', 'body'));
      assert.equal(readFileSync(file, 'utf8'), 'no markers\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The README stays what a newcomer reads in ten minutes (issue 24), and the docs pages hold the rest: the README is
// under 300 lines with exactly the two set-up commands, each docs page opens with a title and a summary paragraph,
// and every relative link in README.md and docs/*.md reaches an existing file (and heading, for `#anchor` links).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const docs = readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const pages = ['README.md', ...docs];
const read = (page: string) => readFileSync(join(repo, page), 'utf8');

/** Lines outside fenced code blocks, and the lines inside them. */
function partition(text: string): { prose: string[]; code: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else (fenced ? code : prose).push(line);
  }
  return { prose, code };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');

function anchors(page: string): Set<string> {
  const out = new Set<string>();
  for (const line of partition(read(page)).prose) {
    const h = /^#{1,6} (.*)$/.exec(line);
    if (h?.[1] !== undefined) out.add(slug(h[1]));
    for (const m of line.matchAll(/<a id="([^"]+)"/g)) if (m[1] !== undefined) out.add(m[1]);
  }
  return out;
}

describe('README.md and docs/', () => {
  it('keeps the README under 300 lines', () => {
    const lines = read('README.md').split('\n').length;
    assert.ok(lines < 300, `README.md has ${lines} lines`);
  });

  it('gives exactly the two set-up commands', () => {
    const { code } = partition(read('README.md'));
    const setUp = code.map((l) => l.trim()).filter((l) => /^(npm (ci|i|install)|yarn|pnpm)\b/.test(l));
    assert.deepEqual(setUp, ['npm ci && npm start', 'npm ci && npm test']);
    const section = /\n## Set up\n([\s\S]*?)\n## /.exec(read('README.md'))?.[1] ?? '';
    assert.deepEqual(partition(section).code.filter((l) => l.trim() !== ''), ['npm ci && npm start', 'npm ci && npm test']);
  });

  it('links every docs page from the README', () => {
    const readme = read('README.md');
    for (const page of docs) assert.ok(readme.includes(`](${page})`), `README.md links ${page}`);
  });

  it('opens every docs page with a title and a summary paragraph', () => {
    assert.ok(docs.length >= 10, `${docs.length} docs pages`);
    for (const page of docs) {
      const [title, blank, summary] = read(page).split('\n');
      assert.match(title ?? '', /^# \S/, `${page} starts with a title`);
      assert.equal(blank, '', `${page}: a blank line after the title`);
      assert.match(summary ?? '', /^(?!#|\||- |```|>|!\[)\S/, `${page}: a summary paragraph after the title`);
    }
  });

  it('has relative links that reach existing files and headings', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const line of partition(read(page)).prose) {
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1] ?? '';
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
          checked++;
          const [path = '', anchor] = target.split('#');
          const file = path === '' ? page : join(dirname(page), path);
          if (!existsSync(join(repo, file))) broken.push(`${page}: ${target} (no file ${file})`);
          else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    assert.ok(checked > 50, `${checked} relative links checked`);
    assert.deepEqual(broken, []);
  });
});

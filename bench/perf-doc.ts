// Writes the bench's tables into docs/performance.md: each section (`everyday`, `storage`, `scale`) owns the text between
// `<!-- bench:<section>:begin -->` and `<!-- bench:<section>:end -->`; everything outside the markers is kept.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type BenchSection = 'everyday' | 'storage' | 'scale';

/** docs/performance.md of the checkout this bench was built from (dist/bench/ -> the repository root). */
export const perfDocPath = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));

/** What the page records about the run beside its table. */
export interface BenchRunInfo {
  date: Date;
  nodeVersion: string;
  cpus: number;
  cpuModel: string;
  loadAtStart: string;
  loadAtEnd: string;
  /** Wall-clock seconds the section took. */
  seconds: number;
}

export const beginMarker = (section: BenchSection) => `<!-- bench:${section}:begin -->`;
export const endMarker = (section: BenchSection) => `<!-- bench:${section}:end -->`;

/** The text a section holds: when and where it was measured, any notes (e.g. the baseline), then the table. */
export function sectionBody(section: BenchSection, info: BenchRunInfo, notes: readonly string[], table: string): string {
  const command = section === 'everyday' ? '`npm run bench`' : `\`npm run bench -- ${section}\``;
  const day = info.date.toISOString().slice(0, 16).replace('T', ' ');
  const header = `Measured by ${command} on ${day} UTC: node ${info.nodeVersion}, ${info.cpus} CPUs (${info.cpuModel}), ` +
    `load average ${info.loadAtStart} at the start and ${info.loadAtEnd} at the end, ${info.seconds.toFixed(0)} s; ` +
    'servers are child processes, the undici load generator runs in the bench process.';
  return [header, ...notes, table].join('\n\n');
}

/** `doc` with the text between the section's markers replaced by `body`; throws unless each marker occurs once, in order. */
export function replaceSection(doc: string, section: BenchSection, body: string): string {
  const begin = beginMarker(section);
  const end = endMarker(section);
  const b = doc.indexOf(begin);
  const e = doc.indexOf(end);
  if (b < 0 || e < 0 || e < b || doc.indexOf(begin, b + 1) >= 0 || doc.indexOf(end, e + 1) >= 0) {
    throw new Error(`expected one ${begin} followed by one ${end}`);
  }
  return `${doc.slice(0, b + begin.length)}\n${body.trim()}\n${doc.slice(e)}`;
}

/** Replaces the section in the file at `path` (written to a temporary file, then renamed over it). */
export function writeSection(path: string, section: BenchSection, body: string): void {
  const next = replaceSection(readFileSync(path, 'utf8'), section, body);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, next);
  renameSync(tmp, path);
}

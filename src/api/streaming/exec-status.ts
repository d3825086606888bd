// What goes on the error channel/stream when an exec or attach ends: a metav1.Status for the v4 and v5 protocols
// (the exit code in `details.causes`, as the kubelet reports it), plain text for older ones.
import type { Outcome } from '../../exec/types.js';

export function execStatus(outcome: Outcome, command: string[], structured: boolean): Buffer | undefined {
  if (!structured) {
    if (outcome.error) return Buffer.from(outcome.error);
    if (outcome.exitCode !== 0) return Buffer.from(`command terminated with non-zero exit code: exit status ${outcome.exitCode}`);
    return undefined;
  }
  if (outcome.error) return Buffer.from(JSON.stringify({ metadata: {}, status: 'Failure', message: outcome.error, reason: 'InternalError', details: { causes: [{ message: outcome.error }] }, code: 500 }));
  if (outcome.exitCode === 0) return Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' }));
  return Buffer.from(JSON.stringify({
    metadata: {}, status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${outcome.exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  }));
}

/** Splits the resize stream (concatenated JSON objects `{"Width":80,"Height":24}`) into sizes; bounded. */
export class ResizeReader {
  private text = '';

  push(chunk: Buffer): Array<{ width: number; height: number }> {
    this.text += chunk.toString('latin1');
    if (this.text.length > 4096) this.text = this.text.slice(-1024);
    const out: Array<{ width: number; height: number }> = [];
    for (;;) {
      const end = this.text.indexOf('}');
      if (end < 0) break;
      const start = this.text.lastIndexOf('{', end);
      const piece = start < 0 ? '' : this.text.slice(start, end + 1);
      this.text = this.text.slice(end + 1);
      try {
        const v: unknown = JSON.parse(piece);
        if (v && typeof v === 'object') {
          const { Width: width, Height: height } = v as { Width?: unknown; Height?: unknown };
          const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 65535;
          if (ok(width) && ok(height)) out.push({ width, height });
        }
      } catch {
        // not a size: skipped
      }
    }
    return out;
  }
}

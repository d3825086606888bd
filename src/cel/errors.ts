// cel-go's rendering of compile issues: `ERROR: <input>:1:6: message`, then the source line and a caret.
export interface SourceIssue { offset: number; message: string }

export function formatCompileError(source: string, issues: SourceIssue[]): string {
  return issues.map((i) => {
    const before = source.slice(0, Math.max(0, Math.min(i.offset, source.length)));
    const line = before.split('\n').length;
    const col = before.length - (before.lastIndexOf('\n') + 1);
    const text = source.split('\n')[line - 1] ?? '';
    return `ERROR: <input>:${line}:${col + 1}: ${i.message}\n | ${text}\n | ${'.'.repeat(col)}^`;
  }).join('\n');
}

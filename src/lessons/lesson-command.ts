// `bonsai lesson [NAME]`: lists the lessons, or runs one against a running server until it is complete (exit 0) or
// interrupted with Ctrl-C (exit 130).
import { resolveTarget } from '../cli/node-command.js';
import { HttpLessonApi } from './lesson-api.js';
import { findLesson, lessonCatalog } from './lesson-catalog.js';
import { runLesson } from './lesson-runner.js';

export interface LessonCommandOptions {
  kubeconfig?: string;
  server?: string;
  /** Seconds without progress before a hint. */
  hintAfter?: number;
}

/**
 * A line for the terminal: names and messages come from the server, so control characters (escape sequences that
 * could rewrite the screen) are shown as `?`.
 */
export function terminalSafe(line: string): string {
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
}

export function listLessons(): string {
  const width = Math.max(...lessonCatalog.map((l) => l.name.length));
  return ['Lessons (run one with: bonsai lesson NAME):', ...lessonCatalog.map((l) => `  ${l.name.padEnd(width)}  ${l.summary}`)].join('\n');
}

/** Runs the command; resolves with the process exit code. */
export async function lessonCommand(name: string | undefined, o: LessonCommandOptions, write: (s: string) => void = (s) => void process.stdout.write(s)): Promise<number> {
  if (name === undefined) {
    write(`${listLessons()}\n`);
    return 0;
  }
  const entry = findLesson(name);
  if (!entry) throw new Error(`no lesson named "${name}"\n${listLessons()}`);
  const api = new HttpLessonApi(resolveTarget(o));
  const lesson = (await entry.load())();
  const abort = new AbortController();
  // A second Ctrl-C (say, during a slow request) leaves at once.
  const onSigint = () => (abort.signal.aborted ? process.exit(130) : abort.abort());
  process.on('SIGINT', onSigint);
  try {
    const result = await runLesson(lesson, { api, say: (line) => write(`${terminalSafe(line)}\n`) }, { signal: abort.signal, hintAfterMs: (o.hintAfter ?? 30) * 1000 });
    if (result === 'aborted') {
      write(`\nLesson ${lesson.name} stopped; what it created stays in the cluster. Run it again to start over.\n`);
      return 130;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

// An interactive shell session: reads the client's input while commands run (Ctrl-C interrupts the running one),
// edits lines in a TTY (with a prompt) or reads plain lines without one, and runs each complete program.
import { ShellSyntaxError } from './shell/lexer.js';
import { parse } from './shell/parser.js';
import type { Shell } from './shell/interp.js';
import type { List } from './shell/ast.js';
import { ExitSignal, LimitError } from './shell/signals.js';
import { sliceMs } from './shell/budget.js';
import { LimitedOut, type Out } from './shell/io.js';
import { LineEditor, maxLineChars } from './line-editor.js';
import { nextTurn } from '../util/next-turn.js';

/** How much typed-ahead input is kept while a command runs, and the longest program gathered over lines. */
const maxPendingBytes = 64 * 1024;
const maxProgramChars = 256 * 1024;

export interface InteractiveOptions {
  shell: Shell;
  tty: boolean;
  stdin: AsyncIterable<Buffer> | undefined;
  /** Terminal output (already translating newlines in a TTY). */
  out: Out;
  err: Out;
  prompt: () => string;
  signal: AbortSignal;
  /** A fresh abort signal for each command (Ctrl-C aborts it). */
  newCommand(): AbortController;
}

export async function interactive(o: InteractiveOptions): Promise<number> {
  const pending: string[] = [];
  let pendingBytes = 0;
  let ended = false;
  let running: AbortController | undefined;
  let wake: (() => void) | undefined;
  const decoder = new TextDecoder('utf-8');
  const pump = (async () => {
    try {
      for await (const chunk of o.stdin ?? []) {
        if (o.signal.aborted) break;
        const text = decoder.decode(chunk, { stream: true });
        // Ctrl-C while a command runs interrupts it; the editor then sees the ^C too (and prints it, and a prompt).
        if (running && o.tty && text.includes('\x03')) running.abort();
        if (pendingBytes + text.length > maxPendingBytes) continue;
        pending.push(text);
        pendingBytes += text.length;
        wake?.();
      }
    } catch {
      /* the client went away */
    } finally {
      ended = true;
      wake?.();
    }
  })();
  const onAbort = () => {
    ended = true;
    wake?.();
  };
  o.signal.addEventListener('abort', onAbort, { once: true });

  let program = '';
  const promptNow = () => (program ? '> ' : o.prompt());
  const editor = new LineEditor((s) => o.out.write(s), promptNow);
  let plainLine = '';
  let exitCode: number | undefined;

  /** Whether the last command was interrupted (its prompt comes with the ^C the editor handles next). */
  let interrupted = false;
  const runLine = async (line: string): Promise<void> => {
    interrupted = false;
    program += `${line}\n`;
    if (program.length > maxProgramChars) {
      o.err.write('sh: input too long\n');
      program = '';
      return;
    }
    // Whether the program is complete yet: parsed again at each line, so the time it takes is the session's CPU time.
    let parsed: List | ShellSyntaxError;
    try {
      parsed = o.shell.budget.charged(() => parse(program));
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      if (/end of file|unterminated/.test(e.message)) return;
      parsed = e;
    }
    const src = program;
    program = '';
    running = o.newCommand();
    try {
      const stdout = new LimitedOut(o.out);
      const stderr = o.err === o.out ? stdout : new LimitedOut(o.err);
      await o.shell.runSource(src, { stdin: { readAll: async () => Buffer.alloc(0) }, stdout, stderr }, parsed);
    } catch (e) {
      if (e instanceof ExitSignal) {
        if (running.signal.aborted && !o.signal.aborted) {
          o.shell.status = 130;
          interrupted = true;
        } else exitCode = e.code;
      } else if (e instanceof LimitError) {
        o.err.write(`${e.message}\n`);
        o.shell.status = 2;
      } else throw e;
    } finally {
      running = undefined;
      // The shell now waits for its next line: the time until then is not its own.
      o.shell.budget.pause();
    }
  };

  // Lines run one after the other without waiting for anything: after a slice's worth of them the loop hands the
  // event loop back (40,000 lines of `:` piped in held it for most of a second).
  let sliceStart = performance.now();
  const breathe = async (): Promise<void> => {
    if (performance.now() - sliceStart < sliceMs) return;
    await nextTurn();
    sliceStart = performance.now();
  };

  if (o.tty) o.out.write(promptNow());
  try {
    while (exitCode === undefined && !o.signal.aborted) {
      if (!pending.length) {
        if (ended) break;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        continue;
      }
      const text = pending.shift()!;
      pendingBytes -= text.length;
      for (let i = 0; i < text.length && exitCode === undefined; i++) {
        const ch = text[i];
        if (!o.tty) {
          if (ch !== '\n') {
            if (plainLine.length < maxLineChars * 64) plainLine += ch;
            continue;
          }
          const line = plainLine;
          plainLine = '';
          await runLine(line);
          await breathe();
          continue;
        }
        const ev = editor.feed(ch);
        if (!ev) continue;
        if (ev.t === 'eof') {
          o.out.write('\r\n');
          exitCode = o.shell.status;
          break;
        }
        if (ev.t === 'interrupt') {
          program = '';
          o.shell.status = 130;
        } else if (ev.t === 'line') {
          await runLine(ev.line);
          await breathe();
        }
        if (exitCode === undefined && !interrupted) o.out.write(promptNow());
        interrupted = false;
      }
      // Characters after an `exit` are dropped, as the shell is gone.
      if (exitCode !== undefined) break;
    }
    if (exitCode === undefined && !o.tty && plainLine) await runLine(plainLine);
    if (exitCode === undefined && program && !o.signal.aborted) {
      o.err.write('sh: syntax error: unexpected end of file\n');
      o.shell.status = 2;
    }
  } finally {
    o.signal.removeEventListener('abort', onAbort);
    ended = true;
    void pump;
  }
  return exitCode ?? o.shell.status;
}

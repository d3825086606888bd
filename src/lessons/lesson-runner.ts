// Runs a lesson: setup, then each step in turn, polling its check until done, printing a ✓ line per step, the
// progress it reports, and a hint when nothing has moved for a while; the dashboard follows along through the
// lesson's progress ConfigMap (lesson-progress.ts).
import { LessonProgress } from './lesson-progress.js';
import type { Lesson, LessonContext } from './lesson-types.js';

export interface RunOptions {
  /** Between two checks (default 500 ms). */
  pollMs?: number;
  /** No progress for this long prints the step's hint (default 30 s). */
  hintAfterMs?: number;
  /** Aborting (Ctrl-C) ends the run at the next poll. */
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type RunResult = 'complete' | 'aborted';

/** Errors from the server in a row before the run gives up (a stopped server should not leave the lesson spinning). */
const maxConsecutiveErrors = 20;

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function runLesson(lesson: Lesson, ctx: LessonContext, opts: RunOptions = {}): Promise<RunResult> {
  const pollMs = opts.pollMs ?? 500;
  const hintAfterMs = opts.hintAfterMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const aborted = () => opts.signal?.aborted === true;

  ctx.say(`${lesson.title}`);
  for (const line of lesson.intro) ctx.say(line);
  await lesson.setup(ctx);
  const progress = new LessonProgress(ctx.api, lesson);
  const headed = lesson.steps.filter((s) => s.heading);
  let stepNo = 0;
  for (const [i, step] of lesson.steps.entries()) {
    if (aborted()) return 'aborted';
    if (step.heading) {
      stepNo++;
      ctx.say('');
      ctx.say(`Step ${stepNo}/${headed.length}: ${step.heading}`);
    }
    if (step.act) await step.act(ctx);
    const instructions = step.instructions ? await step.instructions(ctx) : [];
    for (const line of instructions) ctx.say(`  ${line}`);
    await progress.started(i, instructions);
    let lastProgress: string | undefined;
    let since = now();
    let hinted = false;
    let errors = 0;
    for (;;) {
      if (aborted()) return 'aborted';
      let outcome;
      try {
        outcome = await step.check(ctx);
        errors = 0;
      } catch (e) {
        if (++errors >= maxConsecutiveErrors) throw e;
        outcome = undefined;
      }
      if (outcome?.done) {
        ctx.say(`✓ ${step.ok}${outcome.detail ? `: ${outcome.detail}` : ''}`);
        await progress.done(i, outcome.detail);
        break;
      }
      if (outcome?.progress !== undefined && outcome.progress !== lastProgress) {
        lastProgress = outcome.progress;
        since = now();
        hinted = false;
        ctx.say(`  … ${outcome.progress}`);
        await progress.progress(i, outcome.progress);
      } else if (!hinted && now() - since >= hintAfterMs) {
        hinted = true;
        ctx.say(`  hint: ${step.hint}`);
        await progress.hinted(i);
      }
      await sleep(pollMs, opts.signal);
    }
  }
  ctx.say('');
  for (const line of lesson.outro) ctx.say(line);
  await progress.finished();
  ctx.say(`Lesson ${lesson.name} complete.`);
  return 'complete';
}

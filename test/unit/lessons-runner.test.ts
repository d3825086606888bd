// The lesson runner: ✓ lines per step, progress lines, a hint once nothing moved for a while, Ctrl-C, server errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runLesson } from '../../src/lessons/lesson-runner.js';
import type { LessonApi } from '../../src/lessons/lesson-api.js';
import type { Lesson, LessonContext, Step, StepOutcome } from '../../src/lessons/lesson-types.js';
import { lessonCatalog, findLesson } from '../../src/lessons/lesson-catalog.js';
import { listLessons, terminalSafe } from '../../src/lessons/lesson-command.js';

const noApi = {} as LessonApi;

/** A fake clock: each sleep moves it forward. */
function fakeTime() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

function lessonOf(steps: Step[], setup: (ctx: LessonContext) => Promise<void> = async () => undefined): Lesson {
  return { name: 'demo', title: 'Lesson: demo', intro: ['intro line'], setup, steps, outro: ['outro line'] };
}

/** A check answering each outcome in turn, then the last one forever. */
function sequence(...outcomes: StepOutcome[]): () => Promise<StepOutcome> {
  let i = 0;
  return async () => outcomes[Math.min(i++, outcomes.length - 1)];
}

async function run(lesson: Lesson, opts: { hintAfterMs?: number; signal?: AbortSignal } = {}) {
  const lines: string[] = [];
  const result = await runLesson(lesson, { api: noApi, say: (l) => lines.push(l) }, { ...fakeTime(), pollMs: 500, ...opts });
  return { result, lines };
}

describe('lesson runner', () => {
  it('runs setup, then each step in order, with a ✓ line per step and the outro', async () => {
    const order: string[] = [];
    const lesson = lessonOf([
      { heading: 'First', instructions: () => ['kubectl get pods'], check: sequence({ done: false }, { done: true, detail: 'pod a' }), ok: 'first done', hint: 'h1' },
      { check: async () => ({ done: true }), ok: 'continued', hint: 'h2', act: async () => void order.push('act') },
      { heading: 'Second', act: async () => void order.push('act2'), check: async () => ({ done: true }), ok: 'second done', hint: 'h3' },
    ], async () => void order.push('setup'));
    const { result, lines } = await run(lesson);
    assert.equal(result, 'complete');
    assert.deepEqual(order, ['setup', 'act', 'act2']);
    assert.deepEqual(lines.filter((l) => l.startsWith('✓')), ['✓ first done: pod a', '✓ continued', '✓ second done']);
    assert.ok(lines.includes('Step 1/2: First'));
    assert.ok(lines.includes('Step 2/2: Second'));
    assert.ok(lines.includes('  kubectl get pods'));
    assert.equal(lines.at(-1), 'Lesson demo complete.');
    assert.ok(lines.indexOf('outro line') > lines.indexOf('✓ second done'));
  });

  it('prints progress when it changes, and the hint once after no progress for hintAfterMs', async () => {
    const outcomes: StepOutcome[] = [{ done: false, progress: 'a' }, { done: false, progress: 'a' }];
    for (let i = 0; i < 30; i++) outcomes.push({ done: false, progress: 'b' });
    outcomes.push({ done: true });
    const { lines } = await run(lessonOf([{ heading: 'S', check: sequence(...outcomes), ok: 'ok', hint: 'try kubectl rollout undo' }]), { hintAfterMs: 5_000 });
    assert.deepEqual(lines.filter((l) => l.startsWith('  … ')), ['  … a', '  … b']);
    assert.deepEqual(lines.filter((l) => l.includes('hint:')), ['  hint: try kubectl rollout undo']);
    // The hint comes after "b" (progress reset the wait), ten polls of 500 ms later.
    assert.ok(lines.indexOf('  hint: try kubectl rollout undo') > lines.indexOf('  … b'));
  });

  it('no hint while progress keeps coming', async () => {
    const outcomes: StepOutcome[] = Array.from({ length: 20 }, (_, i) => ({ done: false, progress: `p${i}` }));
    outcomes.push({ done: true });
    const { lines } = await run(lessonOf([{ check: sequence(...outcomes), ok: 'ok', hint: 'never' }]), { hintAfterMs: 1_000 });
    assert.equal(lines.filter((l) => l.includes('hint:')).length, 0);
  });

  it('an aborted run (Ctrl-C) ends at the next poll with "aborted"', async () => {
    const abort = new AbortController();
    let polls = 0;
    const check = async () => {
      if (++polls === 3) abort.abort();
      return { done: false };
    };
    const { result, lines } = await run(lessonOf([{ check, ok: 'never', hint: 'h' }]), { signal: abort.signal });
    assert.equal(result, 'aborted');
    assert.equal(polls, 3);
    assert.ok(!lines.some((l) => l.startsWith('✓')));
  });

  it('rides out transient server errors, but gives up when they persist', async () => {
    let n = 0;
    const flaky = async (): Promise<StepOutcome> => {
      if (++n < 4) throw new Error('connection refused');
      return { done: true };
    };
    assert.equal((await run(lessonOf([{ check: flaky, ok: 'ok', hint: 'h' }]))).result, 'complete');
    const dead = async (): Promise<StepOutcome> => {
      throw new Error('cannot reach the server');
    };
    await assert.rejects(run(lessonOf([{ check: dead, ok: 'ok', hint: 'h' }])), /cannot reach the server/);
  });

  it('the catalog lists the lessons, each loading a lesson with headed steps, ok lines and hints', async () => {
    assert.deepEqual(lessonCatalog.map((l) => l.name), ['rolling-update', 'node-failure', 'gpu-gang', 'probes', 'jobset-failure-policy', 'gpus-with-dra', 'lws-group', 'karpenter-consolidation', 'keda-scale-to-zero', 'vpa-in-place']);
    for (const entry of lessonCatalog) {
      const lesson = (await entry.load())();
      assert.equal(lesson.name, entry.name);
      assert.ok(lesson.steps[0].heading, `${entry.name} starts with a headed step`);
      for (const s of lesson.steps) assert.ok(s.ok && s.hint, `${entry.name}: every step has a ✓ text and a hint`);
    }
    assert.equal(findLesson('constructor'), undefined);
    assert.equal(findLesson('__proto__'), undefined);
    assert.match(listLessons(), /rolling-update .*\n.*node-failure .*\n.*gpu-gang /);
  });

  it('terminalSafe shows control characters from the server as ?', () => {
    assert.equal(terminalSafe('pod \u001b[2Jx\u009b1m\r ✓ ok\ttab'), 'pod ?[2Jx?1m? ✓ ok\ttab');
    assert.equal(terminalSafe('✓ web is Available: 3/3'), '✓ web is Available: 3/3');
  });
});

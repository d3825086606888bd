// A lesson in the dashboard end to end, in headless Chromium: `bonsai lesson rolling-update` runs as a learner starts
// it, against a `bonsai serve` (clock 10x, no add-ons); the panel beside the map shows the lesson's steps as the
// lesson writes them. With the simulated clock paused from the dashboard the first step cannot pass yet: the learner
// runs its kubectl commands (read from the panel), resumes the clock, and the step turns green. The roll-back step
// turns green only once the learner has run the command the panel gives.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { useBrowser } from '../helpers/browser.js';
import { LessonRun } from '../helpers/lesson-run.js';
import { waitDeadline } from '../helpers/wait.js';

const wait = { timeout: waitDeadline(10_000) };
const ns = 'lesson-rolling-update';

/** A command line as the panel shows it, without its comment, as argv for kubectl. */
function argv(line: string): string[] {
  const words = line.replace(/\s+#.*$/, '').trim().split(/\s+/);
  assert.equal(words[0], 'kubectl', line);
  return words.slice(1);
}

describe('web dashboard: a lesson played by a learner', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10', ...noAddons] });
  const browser = useBrowser();

  it("shows the running lesson's steps and turns each green as the learner completes it", async () => {
    const { page, missing } = browser;
    await page.goto(`${env.server.url}/ui/#/map`);
    await page.waitForFunction(() => document.querySelectorAll('[data-node][data-ready="True"]').length === 5, undefined, wait);
    await page.locator('[data-action="clock-pause"]').click();
    await page.waitForFunction(() => /paused/.test(document.querySelector('.clock-speed')?.textContent ?? ''), undefined, wait);
    const run = new LessonRun('rolling-update', env.server.kubeconfig);
    try {
      await run.waitFor(/Step 1\/3: Watch web roll out/);
      const step = (i: number) => `.lesson [data-step="${i}"]`;
      await page.locator(`.lesson[data-lesson="rolling-update"] [data-step="0"][data-state="current"]`).waitFor(wait);
      assert.equal(await page.locator('.lesson h3').textContent(), 'Lesson: a rolling update that goes wrong, and its rollback');
      const headings = await page.locator('.lesson [data-step] b').evaluateAll((els) => els.map((e) => e.textContent));
      assert.deepEqual(headings, ['Watch web roll out', 'A broken release', 'Roll back', 'web is Available on the good revision']);
      // The first step as the learner performs it: its commands, from the panel, with the real kubectl.
      const commands = await page.locator(`${step(0)} pre.cmd`).evaluateAll((els) => els.map((e) => e.textContent ?? ''));
      assert.equal(commands.length, 3);
      for (const c of commands) await env.k.ok(argv(c));
      assert.match(await env.k.ok(['get', 'deployment', 'web', '-n', ns]), /^web\s+0\/3\s/m);
      assert.equal(await page.locator(`${step(0)}[data-state="current"]`).count(), 1, 'not done while the clock is paused');
      await page.locator('[data-action="clock-pause"]').click();
      await page.locator(`${step(0)}[data-state="done"]`).waitFor(wait);
      const mark = await page.locator(`${step(0)} .step-mark`).evaluate((e) => [e.textContent, getComputedStyle(e).backgroundColor]);
      assert.deepEqual(mark, ['✓', 'rgb(46, 158, 79)']);
      assert.match(await page.locator(step(0)).textContent() ?? '', /3\/3 replicas available on nginx:1\.27/);
      await run.waitFor(/✓ web is Available: 3\/3 replicas available on nginx:1\.27/);
      // The roll-back step waits for the learner: current until the command the panel gives has run.
      await page.locator(`${step(2)}[data-state="current"]`).waitFor(wait);
      assert.equal(await page.locator(`${step(1)}`).getAttribute('data-state'), 'done');
      const undo = (await page.locator(`${step(2)} pre.cmd`).evaluateAll((els) => els.map((e) => e.textContent ?? ''))).find((c) => c.includes('rollout undo'));
      assert.ok(undo, 'the panel gives the rollout undo command');
      assert.equal(await page.locator(`${step(2)}[data-state="current"]`).count(), 1);
      await env.k.ok(argv(undo));
      await page.locator(`${step(2)}[data-state="done"]`).waitFor(wait);
      await page.locator('.lesson[data-finished="true"]').waitFor(wait);
      assert.equal(await page.locator('.lesson [data-state="done"]').count(), 4);
      assert.equal(await run.finished(), 0, run.output());
    } finally {
      run.stop();
    }
    assert.deepEqual(missing, []);
  });
});

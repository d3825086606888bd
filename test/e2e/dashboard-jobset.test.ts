// A JobSet's restarts in the dashboard's workloads view, in headless Chromium against a `bonsai serve` with only the
// JobSet add-on: a worker exiting 137 fails its Job through a named pod-failure-policy rule, the JobSet's
// failure-policy rule restarts the set once and then fails it (maxRestarts 1); the view shows the restart count
// kubectl shows, the rule that restarted it with its action, and the failed Job's reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { useBrowser } from '../helpers/browser.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;

const wait = { timeout: waitDeadline(10_000) };

const jobSet = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'oom', namespace: 'default' },
  spec: {
    failurePolicy: { maxRestarts: 1, rules: [{ name: 'restartOnOOM', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'] }] },
    replicatedJobs: [{
      name: 'workers', replicas: 1,
      template: {
        spec: {
          backoffLimit: 0,
          // KEP-4443: the Job fails with reason PodFailurePolicy_oom, which the JobSet's rule matches.
          podFailurePolicy: { rules: [{ name: 'oom', action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [137] } }] },
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 2; exit 137'] }] } },
        },
      },
    }],
  },
};

describe('web dashboard: a JobSet restarted by a failure-policy rule', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10', '--addons', 'jobset'] });
  const browser = useBrowser();

  it("shows the JobSet's restarts, the rule that restarted it and why its Job failed", async () => {
    const { page, missing } = browser;
    await eventually(async () => (await env.k.run(['get', 'jobsets'])).code === 0, 30_000, 'the JobSet CRD installed');
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(jobSet) });
    const failed = await eventually(async () => {
      const js = JSON.parse(await env.k.ok(['get', 'jobset', 'oom', '-o', 'json'])) as Json;
      return (js.status?.conditions ?? []).some((c: Json) => c.type === 'Failed' && c.status === 'True') && js;
    }, 60_000, 'oom Failed after its restart');
    assert.equal(failed.status.restarts, 1);
    await page.goto(`${env.server.url}/ui/#/workloads`);
    const js = '[data-workload="JobSet/default/oom"]';
    await page.locator(`${js} [data-restart-rule]`).waitFor(wait);
    assert.equal(await page.locator(`${js} [data-jobset-restarts]`).textContent(), '1');
    assert.equal(await page.locator(`${js} [data-toward-max]`).textContent(), '1 of maxRestarts 1 used');
    const rule = page.locator(`${js} [data-restart-rule]`);
    assert.equal(await rule.getAttribute('data-restart-rule'), 'restartOnOOM');
    assert.match(await rule.textContent() ?? '', /^Last restart: failure-policy rule restartOnOOM \(RestartJobSet\) — applying RestartJobSet failure policy action \(first failed job: oom-workers-0\)$/);
    await page.locator(`${js} [data-failed-job="oom-workers-0"][data-job-reason="PodFailurePolicy_oom"]`).waitFor(wait);
    assert.match(await page.locator(`${js} [data-failed-job="oom-workers-0"]`).textContent() ?? '', /failed with exit code 137 matching FailJob rule/);
    assert.equal(await page.locator(`${js} [data-failed-reason]`).getAttribute('data-failed-reason'), 'ReachedMaxRestarts');
    assert.deepEqual(missing, []);
  });
});

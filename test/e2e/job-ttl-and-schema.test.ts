// Jobs: ttlSecondsAfterFinished clean-up on a 60x clock, podFailurePolicy validation, and the named-rule extension
// (KEP-4443, ahead of upstream) in the served OpenAPI documents (explain, apply without warnings).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

function job(name: string, spec: Json, podAnnotations: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { annotations: podAnnotations },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
      },
    },
  });
}

const exitRule = (name: string | undefined, values: number[], action = 'FailJob') =>
  ({ ...(name === undefined ? {} : { name }), action, onExitCodes: { operator: 'In', values } });

describe('Job TTL and pod failure policy schema', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '60'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;

  it('deletes a finished Job and its pods ttlSecondsAfterFinished after it finished', async () => {
    // The Job's states are read from a watch opened before it exists: at 60x a TTL of 60 s is one real second, which
    // a loaded machine's polling could miss between the Job finishing and its deletion.
    const stop = new AbortController();
    const url = `${env.server.url}/apis/batch/v1/namespaces/default/jobs?watch=1&fieldSelector=metadata.name%3Dshort-lived`;
    const res = await fetch(url, { signal: stop.signal });
    const events: { type: string; object: Json }[] = [];
    const deleted = (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const e = JSON.parse(buf.slice(0, nl)) as { type: string; object: Json };
          buf = buf.slice(nl + 1);
          events.push(e);
          if (e.type === 'DELETED') return e.object;
        }
      }
      return undefined;
    })();
    try {
      await env.k.ok(['apply', '-f', '-'], { input: job('short-lived', { ttlSecondsAfterFinished: 60 }, { 'bonsai.dev/run-seconds': '2' }) });
      await env.k.ok(['apply', '-f', '-'], { input: job('kept', {}, { 'bonsai.dev/run-seconds': '2' }) });
      const gone = await eventually(async () => (events.some((e) => e.type === 'DELETED') ? deleted : undefined), 120_000, 'job deleted by TTL');
      const complete = (o: Json) => (o.status?.conditions ?? []).find((c: Json) => c.type === 'Complete' && c.status === 'True') as Json | undefined;
      // It was deleted only once it had finished.
      const done = complete(gone ?? {});
      assert.ok(done?.lastTransitionTime, `the deleted Job had finished: ${JSON.stringify(gone?.status)}`);
    } finally {
      stop.abort();
      await deleted.catch(() => undefined);
    }
    await eventually(async () => (await getJson('pods', '-l', 'job-name=short-lived')).items.length === 0, 20_000, 'pods deleted with the job');
    // The Job without a TTL, finished at the same time, stays.
    await eventually(async () => (await getJson('job', 'kept')).status?.succeeded === 1, 60_000, 'the kept Job finished');
  });

  it('kubectl explain describes the rule name', async () => {
    const field = (await env.k.ok(['explain', 'job.spec.podFailurePolicy.rules.name'])).replace(/\s+/g, ' ');
    assert.match(field, /FIELD: name <string>/);
    assert.match(field, /Bonsai extension, ahead of upstream KEP-4443/);
    assert.match(field, /reason `PodFailurePolicy_<name>`/);
    const rules = await env.k.ok(['explain', 'job.spec.podFailurePolicy.rules']);
    assert.match(rules, /^\s+name\s+<string>$/m);
  });

  it('applies a Job with a named rule without warnings, and the named rule sets the failure reason', async () => {
    const r = await env.k.run(['apply', '-f', '-'], {
      input: job('named', { backoffLimit: 0, podFailurePolicy: { rules: [exitRule('fatal-config', [42]), exitRule(undefined, [1], 'Ignore')] } }, { 'bonsai.dev/exit-code': '42' }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal((await getJson('job', 'named')).spec.podFailurePolicy.rules[0].name, 'fatal-config');
    const failed = await eventually(async () => {
      const j = await getJson('job', 'named');
      return (j.status?.conditions ?? []).find((c: Json) => c.type === 'Failed' && c.status === 'True') as Json | undefined;
    }, 30_000, 'job failed by the rule');
    assert.equal(failed.reason, 'PodFailurePolicy_fatal-config');
  });

  it('rejects invalid and duplicate rule names with 422', async () => {
    const bad = await env.k.fails(['create', '-f', '-'], {
      input: job('bad-name', { podFailurePolicy: { rules: [exitRule('9lives', [3]), exitRule('x'.repeat(64), [4])] } }),
    });
    assert.match(bad, /The Job "bad-name" is invalid/);
    assert.match(bad, /spec\.podFailurePolicy\.rules\[0\]\.name: Invalid value: "9lives": a pod failure policy rule name must consist of letters, digits, '_' or '-', must start with a letter/);
    assert.match(bad, /spec\.podFailurePolicy\.rules\[1\]\.name: Invalid value: "x{64}": must be no more than 63 characters/);
    const dup = await env.k.fails(['create', '-f', '-'], {
      input: job('dup-name', { podFailurePolicy: { rules: [exitRule('same', [3]), exitRule('same', [4])] } }),
    });
    assert.match(dup, /The Job "dup-name" is invalid: spec\.podFailurePolicy\.rules\[1\]\.name: Duplicate value: "same"/);
    const res = await fetchStatus(env.server.url, 'dup-name', { podFailurePolicy: { rules: [exitRule('same', [3]), exitRule('same', [4])] } });
    assert.equal(res.code, 422);
    assert.deepEqual(res.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "same"', field: 'spec.podFailurePolicy.rules[1].name' }]);
  });

  it('validates the rest of podFailurePolicy with upstream messages', async () => {
    const err = await env.k.fails(['create', '-f', '-'], {
      input: job('bad-policy', {
        podFailurePolicy: {
          rules: [
            { action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 5, 3, 3] } },
            { action: 'Explode', onExitCodes: { operator: 'Maybe', values: [1], containerName: 'nope' } },
            { action: 'FailIndex', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] },
            { action: 'Ignore' },
            { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1] }, onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          ],
        },
      }),
    });
    const expect = [
      'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 3',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,5,3,3]: must be ordered',
      'spec.podFailurePolicy.rules[1].action: Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      'spec.podFailurePolicy.rules[1].onExitCodes.operator: Unsupported value: "Maybe": supported values: "In", "NotIn"',
      'spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[2].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'spec.podFailurePolicy.rules[3]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      'spec.podFailurePolicy.rules[4]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
    ];
    for (const line of expect) assert.ok(err.includes(line), `missing ${line}\nin: ${err}`);
  });
});

async function fetchStatus(url: string, name: string, spec: Json): Promise<Json> {
  const res = await fetch(`${url}/apis/batch/v1/namespaces/default/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: job(name, spec) });
  return (await res.json()) as Json;
}

// The pytest example of docs/testing-with-bonsai.md (examples/pytest/) runs as written: its session fixture starts
// `bonsai serve --port 0 --data :memory: --output json` and its tests use the official Python kubernetes client.
// CI installs python3-pytest and python3-kubernetes (.ci/run), so this test runs rather than skips.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { binPath, projectRoot } from '../helpers/server.js';
import { runPytest } from '../helpers/pytest.js';

it('the pytest example passes against bonsai serve --output json', async () => {
  const { code, out } = await runPytest(join(projectRoot, 'examples', 'pytest'), { BONSAI: `${JSON.stringify(process.execPath)} ${JSON.stringify(binPath)}` }, 90_000);
  assert.equal(code, 0, out);
  assert.match(out, /\b3 passed\b/, out);
});

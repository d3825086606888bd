// Preloaded by test/run.mjs into every test process (`--import`): routes the test files' `node:test` imports to
// `node-test.mjs`, which gives every test, suite and hook a timeout unless it sets its own. Node 20's
// `--test-timeout` bounds only whole files under `--test`, not each test.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);

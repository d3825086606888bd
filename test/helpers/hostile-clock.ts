// Hostile input for the clock endpoint (/bonsai/v1/clock): bodies that are no object, fields of the wrong type,
// out of range or named after prototype keys, media types it does not read. The cases leave the clock running at
// speed 1, as they found it (the other groups need it).
import type { HostileCase } from './hostile-cases.js';

const P = '/bonsai/v1/clock';
const json = { 'content-type': 'application/json' };
const bad = { expectCode: 400, expectReason: 'BadRequest' };

export function clockCases(): HostileCase[] {
  const post = (name: string, body: string | undefined, extra: Partial<HostileCase> = bad, headers: Record<string, string> = json): HostileCase =>
    ({ name, method: 'POST', path: P, headers, body, ...extra });
  return [
    { name: 'clock state', method: 'GET', path: P, expectCode: 200 },
    post('no body', undefined, { ...bad, expectMessage: /JSON object/ }),
    post('not JSON', '{"action":', { ...bad, expectMessage: /json parse error/ }),
    post('a JSON array', '["pause"]', { ...bad, expectMessage: /JSON object/ }),
    post('a JSON string', '"pause"', { ...bad, expectMessage: /JSON object/ }),
    post('null', 'null', { ...bad, expectMessage: /JSON object/ }),
    post('text/plain', '{"action":"pause"}', { expectCode: 415 }, { 'content-type': 'text/plain' }),
    post('action under __proto__', '{"__proto__":{"action":"pause"}}', { ...bad, expectMessage: /action must be one of/ }),
    post('action under constructor.prototype', '{"constructor":{"prototype":{"action":"pause"}}}', { ...bad, expectMessage: /action must be one of/ }),
    post('action named toString', '{"action":"toString"}', { ...bad, expectMessage: /action must be one of/ }),
    post('action of the wrong type', '{"action":["pause"]}', { ...bad, expectMessage: /action must be one of/ }),
    post('step without seconds', '{"action":"step"}', { ...bad, expectMessage: /seconds is required/ }),
    post('seconds as a string', '{"action":"step","seconds":"5"}', { ...bad, expectMessage: /seconds must be a number/ }),
    post('negative seconds', '{"action":"advance","seconds":-1}', { ...bad, expectMessage: /seconds must be a number/ }),
    post('more than a day', '{"action":"advance","seconds":86401}', { ...bad, expectMessage: /from 0 to 86400/ }),
    post('seconds past float64', '{"action":"advance","seconds":1e999}', bad),
    post('seconds inherited from __proto__', '{"action":"advance","__proto__":{"seconds":5}}', { ...bad, expectMessage: /seconds is required/ }),
    post('speed of the wrong type', '{"action":"speed","speed":true}', { ...bad, expectMessage: /speed must be a number/ }),
    post('speed too fast', '{"action":"speed","speed":1e7}', { ...bad, expectMessage: /speed must be a number from 0 to 1000000/ }),
    post('deeply nested body', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, bad),
    post('speed 0 pauses', '{"action":"speed","speed":0}', { expectCode: 200 }),
    post('a step of zero seconds', '{"action":"step","seconds":0}', { expectCode: 200, maxMs: 5000 }),
    post('speed 1 (still paused)', '{"action":"speed","speed":1}', { expectCode: 200 }),
    post('resume', '{"action":"resume","extra":{"__proto__":1}}', { expectCode: 200 }),
  ];
}

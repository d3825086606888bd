// Hostile input for API Priority and Fairness: the only client data it reads are the `timeout` query parameter (the
// queue wait limit is a quarter of it) and the debug dumps' `includeRequestDetails`. Neither may fail a request.
import { CMS, type HostileCase } from './hostile-cases.js';

const dumps = '/debug/api_priority_and_fairness';

export function flowControlCases(): HostileCase[] {
  const timeouts = ['99999999999999999999999h', '-1s', '1e9', '%00', '0', '.s', `${'9'.repeat(5000)}s`, '1h&timeout=1ns', '__proto__'];
  return [
    ...timeouts.map((t): HostileCase => ({ name: `list with timeout=${t.slice(0, 30)}`, method: 'GET', path: `${CMS}?timeout=${t}`, sameAs: { method: 'GET', path: `${CMS}?timeout=30s` }, maxMs: 2000 })),
    ...['', '__proto__', 'constructor', 'x'.repeat(5000), '1&includeRequestDetails=', '%zz'].map((v): HostileCase => ({
      name: `dump_requests?includeRequestDetails=${v.slice(0, 30)}`, method: 'GET', path: `${dumps}/dump_requests?includeRequestDetails=${v}`, expectCode: 200, maxMs: 2000,
    })),
    { name: 'dump_requests with includeRequestDetails[]', method: 'GET', path: `${dumps}/dump_requests?includeRequestDetails[]=1&includeRequestDetails[__proto__]=1`, expectCode: 200 },
    { name: 'dump_queues with a query', method: 'GET', path: `${dumps}/dump_queues?__proto__[x]=1`, expectCode: 200 },
  ];
}

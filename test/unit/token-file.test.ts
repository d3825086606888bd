// --token-auth-file parsing: Go's encoding/csv rules (quotes, "" escapes, multi-line quoted fields, no trimming,
// blank lines skipped, bare quotes refused) and upstream's token file checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv, parseTokenFile } from '../../src/auth/authn/token-file.js';

test('CSV records as Go reads them', () => {
  assert.deepEqual(parseCsv('a,b,c\n\n"d,e",f\r\n g ,"h""i",""\n"multi\nline",x'), [['a', 'b', 'c'], ['d,e', 'f'], [' g ', 'h"i', ''], ['multi\nline', 'x']]);
  assert.deepEqual(parseCsv('last,line,no newline'), [['last', 'line', 'no newline']]);
  assert.deepEqual(parseCsv('trailing,comma,\n'), [['trailing', 'comma', '']]);
  assert.throws(() => parseCsv('a"b,c'), /^Error: parse error on line 1: bare " in non-quoted-field$/);
  assert.throws(() => parseCsv('ok\n"open,field'), /parse error on line 2: extraneous or missing " in quoted-field/);
  assert.throws(() => parseCsv('"x"y,z'), /extraneous or missing " in quoted-field/);
});

test('token file users: name, uid, groups; empty tokens skipped; the last duplicate wins', () => {
  const users = parseTokenFile('t1,alice,1,"a,b"\n,nobody,2\nt2,bob,\nt1,carol,3\nt3,dave,4,\n', 'f.csv');
  assert.deepEqual([...users.keys()], ['t1', 't2', 't3']);
  assert.deepEqual(users.get('t1'), { username: 'carol', uid: '3', groups: [] });
  assert.deepEqual(users.get('t2'), { username: 'bob', groups: [] });
  assert.deepEqual(users.get('t3'), { username: 'dave', uid: '4', groups: [''] });
  assert.deepEqual(parseTokenFile('t,alice,1,"dev,ops"', 'f').get('t'), { username: 'alice', uid: '1', groups: ['dev', 'ops'] });
  assert.throws(() => parseTokenFile('t,alice', 'f.csv'), /^Error: token file 'f.csv' must have at least 3 columns \(token, user name, user uid\), found 2$/);
  const proto = parseTokenFile('__proto__,x,1\nconstructor,y,2', 'f');
  assert.equal(proto.get('__proto__')?.username, 'x');
  assert.equal(({} as Record<string, unknown>).username, undefined);
});

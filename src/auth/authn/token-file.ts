// `--token-auth-file`: upstream's static token CSV, one `token,user,uid[,"group1,group2"]` record a line, read with
// the rules of Go's encoding/csv (quoted fields, "" escapes, no trimming, blank lines skipped) and upstream's
// checks (at least 3 columns; empty tokens skipped; a later duplicate wins).
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../types.js';
import type { TokenAuthenticator } from './outcome.js';

class CsvError extends Error {}

/** Splits CSV text into records as Go's csv.Reader does with FieldsPerRecord = -1. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const s = text.replace(/\r\n/g, '\n');
  let i = 0;
  let line = 1;
  while (i < s.length) {
    if (s[i] === '\n') {
      i++;
      line++;
      continue;
    }
    const startLine = line;
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length) throw csvError(startLine, line, 'extraneous or missing " in quoted-field');
          const c = s[i];
          if (c === '"') {
            if (s[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            if (i < s.length && s[i] !== ',' && s[i] !== '\n') throw csvError(startLine, line, 'extraneous or missing " in quoted-field');
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
      } else {
        while (i < s.length && s[i] !== ',' && s[i] !== '\n') {
          if (s[i] === '"') throw csvError(startLine, line, 'bare " in non-quoted-field');
          field += s[i];
          i++;
        }
      }
      record.push(field);
      if (i < s.length && s[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (s[i] === '\n') {
      i++;
      line++;
    }
    records.push(record);
  }
  return records;
}

function csvError(startLine: number, line: number, what: string): CsvError {
  const at = `parse error on line ${line}: ${what}`;
  return new CsvError(startLine !== line ? `record on line ${startLine}; ${at}` : at);
}

/** The users of a token file by token. Throws with upstream's wording on malformed files. */
export function parseTokenFile(text: string, path: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  for (const record of parseCsv(text)) {
    if (record.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, username, uid] = record;
    if (token === '') continue;
    const user: UserInfo = { username, groups: record.length >= 4 ? record[3].split(',') : [] };
    if (uid) user.uid = uid;
    tokens.set(token, user);
  }
  return tokens;
}

export function readTokenFile(path: string): Map<string, UserInfo> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`--token-auth-file: open ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  try {
    return parseTokenFile(text, path);
  } catch (e) {
    throw new Error(`--token-auth-file: ${(e as Error).message}`);
  }
}

/** Looks tokens up in a fixed table (the token file, the admin token). */
export function staticTokens(tokens: Map<string, UserInfo>): TokenAuthenticator {
  return {
    authenticateToken(token) {
      const user = tokens.get(token);
      return user ? { user: { ...user, groups: [...user.groups] } } : undefined;
    },
  };
}

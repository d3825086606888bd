// Label selectors: the string syntax of list requests and metav1.LabelSelector objects.
import { badRequest } from './errors.js';
import type { LabelSelector } from './types.js';
import { goQuote } from './go-quote.js';
import { hasOwn } from '../util/own.js';
import { isQualifiedName } from './names.js';

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Equals' | 'NotEquals' | 'Gt' | 'Lt';
export interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}
export type Selector = Requirement[];
type Labels = Record<string, string> | undefined;

const valueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Parses `a=b,c!=d,e in (x,y),!f,g` into requirements; throws 400 on bad syntax. */
export function parseLabelSelector(input: string): Selector {
  const s = input.trim();
  if (!s) return [];
  const out: Requirement[] = [];
  for (const part of splitTopLevel(s)) {
    const p = part.trim();
    if (!p) throw badRequest(`unable to parse requirement: found '', expected: identifier`);
    let m: RegExpMatchArray | null;
    if ((m = p.match(/^(\S+)\s+(in|notin)\s*\((.*)\)$/))) {
      const values = m[3].trim() === '' ? [] : m[3].split(',').map((v) => v.trim());
      out.push(req(m[1], m[2] === 'in' ? 'In' : 'NotIn', values));
    } else if ((m = p.match(/^([^!=<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/))) {
      const op: Operator = m[2] === '!=' ? 'NotEquals' : m[2] === '>' ? 'Gt' : m[2] === '<' ? 'Lt' : 'Equals';
      out.push(req(m[1], op, [m[3]]));
    } else if ((m = p.match(/^!\s*(\S+)$/))) {
      out.push(req(m[1], 'DoesNotExist', []));
    } else if (/^\S+$/.test(p)) {
      out.push(req(p, 'Exists', []));
    } else {
      throw badRequest(`unable to parse requirement: <nil>: Invalid value: "${p}": invalid label selector`);
    }
  }
  return out;
}

function req(key: string, op: Operator, values: string[]): Requirement {
  const problems = isQualifiedName(key);
  if (problems.length) {
    throw badRequest(`unable to parse requirement: values[0][key]: Invalid value: ${goQuote(key)}: ${problems.join('; ')}`);
  }
  for (const v of values) {
    if ((op === 'Gt' || op === 'Lt') && !/^-?\d+$/.test(v)) throw badRequest(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
    if (op !== 'Gt' && op !== 'Lt' && (!valueRe.test(v) || v.length > 63)) {
      throw badRequest(`unable to parse requirement: values[0][${key}]: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
    }
  }
  if ((op === 'In' || op === 'NotIn') && values.length === 0) throw badRequest(`unable to parse requirement: for 'in', 'notin' operators, values set can't be empty`);
  return { key, op, values };
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

export function matchesSelector(sel: Selector, labels: Labels): boolean {
  for (const r of sel) {
    const has = labels !== undefined && hasOwn(labels, r.key);
    const v = has ? labels![r.key] : undefined;
    switch (r.op) {
      case 'Equals':
      case 'In':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case 'NotEquals':
      case 'NotIn':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      case 'Gt':
      case 'Lt': {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        const n = Number(v);
        const target = Number(r.values[0]);
        if (r.op === 'Gt' ? !(n > target) : !(n < target)) return false;
        break;
      }
    }
  }
  return true;
}

/**
 * `key=value` of a requirement every match must carry (Equals, or In with one value), for looking candidates up in
 * an index of labels; undefined when the selector has none.
 */
export function labelIndexKey(sel: Selector): string | undefined {
  for (const r of sel) {
    if (r.op === 'Equals' || (r.op === 'In' && r.values.length === 1)) return `${r.key}=${r.values[0]}`;
  }
  return undefined;
}

/** Converts a metav1.LabelSelector; `null`/undefined selects nothing, `{}` selects everything. */
export function fromLabelSelector(ls: LabelSelector | undefined | null): Selector | undefined {
  if (!ls) return undefined;
  const out: Requirement[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) out.push({ key: k, op: 'Equals', values: [v] });
  for (const e of ls.matchExpressions ?? []) {
    const op = e.operator as Operator;
    out.push({ key: e.key, op, values: e.values ?? [] });
  }
  return out;
}

export function labelSelectorMatches(ls: LabelSelector | undefined | null, labels: Labels): boolean {
  const sel = fromLabelSelector(ls);
  return sel !== undefined && matchesSelector(sel, labels);
}

/** Renders a metav1.LabelSelector as the string form (`app=web,tier in (a,b)`). */
export function formatLabelSelector(ls: LabelSelector | undefined | null): string {
  if (!ls) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of ls.matchExpressions ?? []) {
    const vals = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vals})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vals})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

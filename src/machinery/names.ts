// Name and key formats with upstream's messages (apimachinery util/validation and api/validate/content).
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelValueFmt = `(${labelKeyFmt})?`;
const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const percentFmt = '[0-9]+%';

const anchored = (fmt: string) => new RegExp(`^${fmt}$`);
const dns1123LabelRe = anchored(dns1123LabelFmt);
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);
const dns1035LabelRe = anchored(dns1035LabelFmt);
const labelKeyRe = anchored(labelKeyFmt);
const labelValueRe = anchored(labelValueFmt);
const configMapKeyRe = anchored(configMapKeyFmt);
const percentRe = anchored(percentFmt);

/**
 * Strings already found valid by one check: label keys, label values and namespace names repeat across nearly every
 * write, and their regular expressions cost more than a lookup. Bounded (cleared when full: the next writes refill it).
 */
class ValidMemo {
  private readonly seen = new Set<string>();
  constructor(private readonly check: (v: string) => string[], private readonly max = 4096) {}
  errors(v: string): string[] {
    if (this.seen.has(v)) return [];
    const errs = this.check(v);
    if (errs.length === 0 && v.length <= 253) {
      if (this.seen.size >= this.max) this.seen.clear();
      this.seen.add(v);
    }
    return errs;
  }
}

/** Upstream's RegexError wording, quirks included (`'a',  or 'b'`). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}
export const maxLenError = (n: number) => `must be no more than ${n} characters`;
export const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

export function isDns1123Label(v: string): string[] {
  return dns1123LabelMemo.errors(v);
}
const dns1123LabelMemo = new ValidMemo(checkDns1123Label);
function checkDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(v)) {
    if (dns1123SubdomainRe.test(v)) errs.push('must not contain dots');
    else errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(v)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, 'example.com'));
  }
  return errs;
}

export function isDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(v)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, 'my-name', 'abc-123'));
  }
  return errs;
}

export function isPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (v.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/** A name validator: `prefix` is true for generateName, whose trailing dash is allowed. */
export type NameFn = (name: string, prefix: boolean) => string[];
const masked = (fn: (v: string) => string[]): NameFn => (name, prefix) => fn(prefix && name.endsWith('-') ? `${name.slice(0, -1)}a` : name);
export const nameIsDnsSubdomain = masked(isDns1123Subdomain);
export const nameIsDnsLabel = masked(isDns1123Label);
export const nameIsDns1035Label = masked(isDns1035Label);
export const nameIsPathSegment: NameFn = (name) => isPathSegmentName(name);

export function isQualifiedName(v: string): string[] {
  return qualifiedNameMemo.errors(v);
}
const qualifiedNameMemo = new ValidMemo(checkQualifiedName);
function checkQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a valid label key ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!labelKeyRe.test(name)) {
    errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isLabelValue(v: string): string[] {
  return labelValueMemo.errors(v);
}
const labelValueMemo = new ValidMemo(checkLabelValue);
function checkLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(v)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!configMapKeyRe.test(v)) errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.startsWith('-') || v.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isValidPercent(v: string): string[] {
  return percentRe.test(v) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, '1%', '93%')];
}

const ipv4Re = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
/** A dotted IPv4 address, or something shaped like an IPv6 one (hex digits, colons and dots, at least one colon). */
export const isIp = (s: string): boolean => ipv4Re.test(s) || (s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s));
export const invalidIpError = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export function isRelaxedEnvVarName(v: string): string[] {
  const errs: string[] = [];
  if (v.length === 0) errs.push('environment variable name must be non-empty');
  if (/[^\x20-\x7e]|=/.test(v)) errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return errs;
}

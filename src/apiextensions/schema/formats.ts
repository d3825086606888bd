// The string formats kube-apiserver checks in CRD schemas (apiextensions' supportedVersionedFormats, validated as
// kube-openapi's strfmt.Default does). Names are compared with dashes removed (`date-time` is `datetime`); any other
// format is ignored, as upstream strips it before building the validator.
import { isIP } from 'node:net';
import { parseQuantity } from '../../machinery/quantity.js';
import { isDns1123Label } from '../../machinery/names.js';

const re = (r: RegExp) => (s: string) => r.test(s);

const isIp = (s: string) => isIP(s) !== 0;

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const v = isIP(ip);
  if (!v || !/^[0-9]{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v === 4 ? 32 : 128);
}

const macRe = /^(?:[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){7}|[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){19}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){2}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){3}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){9})$/;

function isbn10(s: string): boolean {
  const t = s.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(t[i]);
  sum += t[9] === 'X' ? 100 : 10 * Number(t[9]);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const t = s.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(t[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(t[12]);
}

const cardRe = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;

function creditCard(s: string): boolean {
  const t = s.replace(/[^0-9]/g, '');
  if (!cardRe.test(t)) return false;
  let sum = 0;
  let double = false;
  for (let i = t.length - 1; i >= 0; i--) {
    let d = Number(t[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const octet = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbRe = new RegExp(`^rgb\\(\\s*${octet}\\s*,\\s*${octet}\\s*,\\s*${octet}\\s*\\)$`);

function isBase64(s: string): boolean {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(t);
}

function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[mo - 1];
}

const timeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(z|[+-][0-9]{2}:[0-9]{2})$/;

/** strfmt.IsDateTime: a valid date, `t`, then hh:mm:ss[.frac] and a zone, case-insensitive. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = timeRe.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

const goDurationRe = /^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const durationUnits = new Set(['ns', 'us', 'µs', 'ms', 's', 'm', 'h', 'd', 'w', 'nanosecond', 'nanoseconds', 'microsecond', 'microseconds',
  'millisecond', 'milliseconds', 'sec', 'secs', 'second', 'seconds', 'min', 'mins', 'minute', 'minutes', 'hr', 'hrs', 'hour', 'hours',
  'day', 'days', 'wk', 'wks', 'week', 'weeks']);

/** strfmt.ParseDuration: Go's time.ParseDuration, else `<n> <unit>` groups with units from a fixed list. */
function isDuration(s: string): boolean {
  if (s === '0' || goDurationRe.test(s)) return true;
  const groups = [...s.matchAll(/([0-9]+)\s*([A-Za-zµ]+)/g)];
  if (!groups.length) return false;
  return groups.every((g) => durationUnits.has(g[2]));
}

const hostnameRe = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

const longNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const formatCheckers: Record<string, (s: string) => boolean> = {
  bsonobjectid: re(/^[0-9a-fA-F]{24}$/),
  uri: (s) => !/[\s\x00-\x1f\x7f]/.test(s) && (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith('/')),
  email: (s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s) || /^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(s),
  hostname: (s) => s.length <= 255 && hostnameRe.test(s),
  ipv4: (s) => isIp(s) && s.includes('.'),
  ipv6: (s) => isIp(s) && s.includes(':'),
  cidr: isCidr,
  mac: re(macRe),
  uuid: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid3: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i),
  uuid4: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  uuid5: re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: creditCard,
  ssn: re(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/),
  hexcolor: re(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/),
  rgbcolor: re(rgbRe),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  quantity: (s) => !('error' in parseQuantity(s)),
  k8sshortname: (s) => isDns1123Label(s).length === 0,
  k8slongname: (s) => s.length <= 253 && longNameRe.test(s),
};

/**
 * The format upstream validates for a schema of `type` (dashes removed), or undefined when it ignores it:
 * strings (and untyped schemas) know the names above; integer and number formats only decide type wording.
 */
export function checkedFormat(type: string, format: string): string | undefined {
  if (!format) return undefined;
  if (type !== '' && type !== 'string') return undefined;
  const normalized = format.replace(/-/g, '');
  return Object.prototype.hasOwnProperty.call(formatCheckers, normalized) ? normalized : undefined;
}

/** The format left on a schema node after upstream's post-processing (unsupported ones become empty). */
export function effectiveFormat(type: string, format: string): string {
  if (!format) return '';
  if (type === 'integer') return format === 'int32' || format === 'int64' ? format : '';
  if (type === 'number') return format === 'float' || format === 'double' ? format : '';
  return checkedFormat(type, format) ? format : '';
}

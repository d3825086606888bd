// Kubernetes' format library: format.<name>() and format.named(name) give a format; `.validate(s)` returns
// optional.none() for a valid string, or optional.of(the list of upstream's error messages).
import { celFunc, celList, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import {
  isDns1035Label, isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName,
  nameIsDns1035Label, nameIsDnsLabel, nameIsDnsSubdomain,
} from '../machinery/names.js';
import { makeOpaque, opaqueText, opaqueTypes } from './opaque.js';
import { optionalNone, optionalOf } from './lib-optional.js';
import { chargeString } from './budget.js';

const { STRING } = CelScalar;
const F = opaqueTypes.format;
const OPT = opaqueTypes.optional;

const uuidRe = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const validators: Record<string, (s: string) => string[]> = {
  dns1123Label: isDns1123Label,
  dns1123Subdomain: isDns1123Subdomain,
  dns1035Label: isDns1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => nameIsDnsLabel(s, true),
  dns1123SubdomainPrefix: (s) => nameIsDnsSubdomain(s, true),
  dns1035LabelPrefix: (s) => nameIsDns1035Label(s, true),
  labelValue: isLabelValue,
  uri: (s) => { try { new URL(s); return []; } catch { return s.startsWith('/') ? [] : ['invalid URI']; } },
  uuid: (s) => (uuidRe.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ['invalid base64']),
  date: (s) => (dateRe.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) => (dateTimeRe.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime']),
};

const has = (name: string) => Object.prototype.hasOwnProperty.call(validators, name);
const formatValue = (name: string) => makeOpaque('format', name);

export const formatNames = Object.keys(validators);

export const formatFuncs: CelFunc[] = [
  ...formatNames.map((name) => celFunc(`format.${name}`, [], F, () => formatValue(name))),
  celFunc('format.named', [STRING], OPT, (name) => (has(name) ? optionalOf(formatValue(name)) : optionalNone())),
  celMethod('validate', F, [STRING], OPT, function (s) {
    chargeString(s.length);
    const name = opaqueText(this);
    const errs = has(name) ? validators[name](s) : [];
    return errs.length ? optionalOf(celList(errs)) : optionalNone();
  }),
];

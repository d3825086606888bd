// Hostile input for resource.k8s.io (issue 25): claims and slices with huge selector, request and device lists, deep
// and costly CEL, absurd counts and quantities, prototype-named attributes, and v1beta1 bodies with the same. Lists
// over their limits are refused by their size alone (never walked), CEL past its cost limit is refused without
// being run, and what is accepted reads back as it was sent.
import { uniq, NS, type HostileCase } from './hostile-cases.js';
import { envelope, ld } from './hostile-protobuf.js';

const CLAIMS = `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaims`;
const BETA_CLAIMS = `/apis/resource.k8s.io/v1beta1/namespaces/${NS}/resourceclaims`;
const TEMPLATES = `/apis/resource.k8s.io/v1/namespaces/${NS}/resourceclaimtemplates`;
const SLICES = '/apis/resource.k8s.io/v1/resourceslices';
const BETA_SLICES = '/apis/resource.k8s.io/v1beta1/resourceslices';
const CLASSES = '/apis/resource.k8s.io/v1/deviceclasses';
const JSON_CT = { 'content-type': 'application/json' };
const PB = { 'content-type': 'application/vnd.kubernetes.protobuf' };

/** A v1 DeviceClass in protobuf: metadata 1 (name 1), spec 2 (selectors 1: cel 1: expression 1). */
const classProto = (name: string, expression: string) =>
  envelope('resource.k8s.io/v1', 'DeviceClass', Buffer.concat([ld(1, ld(1, name)), ld(2, ld(1, ld(1, ld(1, expression))))]));

const post = (name: string, path: string, body: string, expectCode: number, expectMessage?: RegExp): HostileCase =>
  ({ name, method: 'POST', path, headers: JSON_CT, body, expectCode, expectMessage });

const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');
const sel = (expression: string) => `{"cel":{"expression":${JSON.stringify(expression)}}}`;
const exact = (extra = '') => `{"name":"r","exactly":{"deviceClassName":"hostile.example.com"${extra}}}`;

function claim(requests: string, extra = ''): string {
  return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"${uniq('claim')}"},"spec":{"devices":{"requests":[${requests}]${extra}}}}`;
}

function slice(spec: string): string {
  return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"${uniq('slice')}"},"spec":{"driver":"hostile.example.com","nodeName":"hostile-nowhere","pool":{"name":"hostile","resourceSliceCount":1},${spec}}}`;
}

const device = (i: number, extra = '') => `{"name":"d${i}"${extra}}`;
const counters = (n: number) => `{${many(n, (i) => `"c${i}":{"value":"1"}`)}}`;

/** `device.attributes[...].all(...)` nested `depth` deep: each level multiplies the estimated cost. */
function nestedComprehension(depth: number): string {
  let e = 'true';
  for (let i = depth; i > 0; i--) e = `device.attributes["hostile.example.com"].all(k${i}, ${e})`;
  return e;
}

export function draApiCases(): HostileCase[] {
  const evil = '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}';
  return [
    post('a claim with 10,000 requests', CLAIMS, claim(many(10_000, (i) => `{"name":"r${i}","exactly":{"deviceClassName":"c"}}`)), 422, /spec\.devices\.requests: Too many: 10000: must have at most 32 items/),
    post('a claim with 33 requests', CLAIMS, claim(many(33, (i) => `{"name":"r${i}","exactly":{"deviceClassName":"c"}}`)), 422, /Too many: 33: must have at most 32 items/),
    post('a request with 100,000 selectors', CLAIMS, claim(exact(`,"selectors":[${many(100_000, () => sel('true'))}]`)), 422, /selectors: Too many: 100000: must have at most 32 items/),
    post('a request with 9 alternatives', CLAIMS, claim(`{"name":"r","firstAvailable":[${many(9, (i) => `{"name":"s${i}","deviceClassName":"c"}`)}]}`), 422, /firstAvailable: Too many: 9: must have at most 8 items/),
    post('a claim with 5,000 constraints naming missing requests', CLAIMS, claim(exact(), `,"constraints":[${many(5000, () => '{"requests":["nope"],"matchAttribute":"a.example.com/x"}')}]`), 422, /constraints: Too many: 5000: must have at most 32 items/),
    post('a selector nesting comprehensions 20 deep', CLAIMS, claim(exact(`,"selectors":[${sel(nestedComprehension(20))}]`)), 422, /Forbidden: too complex, exceeds cost limit/),
    post('a selector binding the attributes and nesting comprehensions over the binding', CLAIMS,
      claim(exact(`,"selectors":[${sel(`cel.bind(a, device.attributes["hostile.example.com"], ${nestedComprehension(12).replaceAll('device.attributes["hostile.example.com"]', 'a')})`)}]`)), 422, /Forbidden: too complex, exceeds cost limit/),
    post('a selector of 4,000 nested parentheses', CLAIMS, claim(exact(`,"selectors":[${sel(`${'('.repeat(4000)}true${')'.repeat(4000)}`)}]`)), 422, /cel\.expression: Invalid value/),
    post('a selector of 2,500 additions', CLAIMS, claim(exact(`,"selectors":[${sel(`${'1 + '.repeat(2500)}1 == 1`)}]`)), 422, /cel\.expression: Invalid value/),
    post('a selector one byte over 10 KiB', CLAIMS, claim(exact(`,"selectors":[${sel(`device.driver == "${'x'.repeat(10_224)}"`)}]`)), 422, /Too long: may not be more than 10240 bytes/),
    post('a selector that is not a boolean', CLAIMS, claim(exact(`,"selectors":[${sel('device.driver')}]`)), 422, /must evaluate to bool or the unknown type, not string/),
    post('a request for 10^30 devices', CLAIMS, claim(exact(',"count":1e30')), 400, /cannot unmarshal number 1e\+30/),
    post('a request for 2^53+1 devices', CLAIMS, claim(exact(',"count":9007199254740993')), 201),
    post('a request for -5 devices', CLAIMS, claim(exact(',"count":-5')), 422, /count: Invalid value: -5: must be greater than zero/),
    post('a request named __proto__ with keys named __proto__ and constructor', CLAIMS, claim(`{${evil},"name":"__proto__","exactly":{${evil},"deviceClassName":"c"}}`), 422, /requests\[0\]\.name: Invalid value: "__proto__"/),
    post('a v1beta1 claim with keys named __proto__ and constructor in its request', BETA_CLAIMS,
      claim(`{${evil},"name":"r","deviceClassName":"c"}`).replace('resource.k8s.io/v1"', 'resource.k8s.io/v1beta1"'), 201),
    post('a template whose claim has 1,000 bad configurations', TEMPLATES,
      `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"${uniq('tpl')}"},"spec":{"spec":{"devices":{"config":[${many(1000, () => '{"opaque":{"driver":"X","parameters":[]}}')}]}}}}`,
      422, /spec\.spec\.devices\.config: Too many: 1000: must have at most 32 items/),
    post('a slice with 129 devices', SLICES, slice(`"devices":[${many(129, (i) => device(i))}]`), 422, /spec\.devices: Too many: 129: must have at most 128 items/),
    post('a slice with 65 devices that consume counters', SLICES,
      slice(`"devices":[${many(65, (i) => device(i, ',"consumesCounters":[{"counterSet":"s","counters":{"m":{"value":"1"}}}]'))}]`), 422, /spec\.devices: Too many: 65: must have at most 64 items/),
    post('a slice with 100 devices of 100 attributes each', SLICES, slice(`"devices":[${many(100, (i) => device(i, `,"attributes":{${many(100, (j) => `"a${j}":{"int":${j}}`)}}`))}]`),
      422, /spec\.devices\[99\]: Invalid value: 100: the total number of attributes and capacities must not exceed 32/),
    post('a device with 33 attributes and capacities', SLICES, slice(`"devices":[${device(0, `,"attributes":{${many(20, (j) => `"a${j}":{"bool":true}`)}},"capacity":{${many(13, (j) => `"c${j}":{"value":"1"}`)}}`)}]`),
      422, /the total number of attributes and capacities must not exceed 32/),
    post('a device with attributes and capacities named __proto__ and constructor', SLICES,
      slice(`"devices":[${device(0, ',"attributes":{"__proto__":{"int":1},"constructor":{"string":"x"}},"capacity":{"__proto__":{"value":"1"}}')}]`), 201),
    post('a device with a capacity of 10^32 Ei', SLICES, slice(`"devices":[${device(0, ',"capacity":{"memory":{"value":"99999999999999999999999999999999Ei"}}')}]`), 201),
    post('a device with a capacity of 1e1000000', SLICES, slice(`"devices":[${device(0, ',"capacity":{"memory":{"value":"1e1000000"}}')}]`), 400),
    post('a slice with 9 counter sets', SLICES, slice(`"sharedCounters":[${many(9, (i) => `{"name":"s${i}","counters":{"m":{"value":"1"}}}`)}]`), 422, /spec\.sharedCounters: Too many: 9: must have at most 8 items/),
    post('a counter set with 10,000 counters', SLICES, slice(`"sharedCounters":[{"name":"s","counters":${counters(10_000)}}]`), 422, /spec\.sharedCounters\[0\]\.counters: Too many: 10000: must have at most 32 items/),
    post('a slice with devices and counter sets', SLICES, slice(`"devices":[${device(0)}],"sharedCounters":[{"name":"s","counters":{"m":{"value":"1"}}}]`), 422, /only one of `sharedCounters` or `devices` is allowed/),
    post('a v1beta1 slice whose devices have no basic part, and one with keys named __proto__', BETA_SLICES,
      slice(`"devices":[{"name":"a"},{"name":"b","basic":{${evil},"attributes":{"x":{"int":1}}}}]`).replace('resource.k8s.io/v1"', 'resource.k8s.io/v1beta1"'), 201),
    { name: 'a protobuf DeviceClass', method: 'POST', path: CLASSES, headers: PB, body: classProto(uniq('class'), 'device.driver == "hostile.example.com"'), expectCode: 201 },
    { name: 'a protobuf DeviceClass whose selector does not compile', method: 'POST', path: CLASSES, headers: PB, body: classProto(uniq('class'), 'device.driver =='), expectCode: 422, expectMessage: /compilation failed/ },
    post('a class with 1,000 selectors', CLASSES, `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"${uniq('class')}"},"spec":{"selectors":[${many(1000, () => sel('true'))}]}}`,
      422, /spec\.selectors: Too many: 1000: must have at most 32 items/),
  ];
}

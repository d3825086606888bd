// The REST operations apiextensions-apiserver publishes for one custom resource version (its OpenAPI builder
// templates them as go-restful routes), and their rendering as OpenAPI v3 or v2 path items. Query parameter
// texts come from the static upstream documents, so they read exactly as for built-in kinds.
import type { CustomResourceSpec } from './custom-types.js';
import { definitionName } from './custom-types.js';

type Action = 'list' | 'post' | 'deletecollection' | 'get' | 'put' | 'delete' | 'patch';
type TypeRef = 'kind' | 'list' | 'status' | 'patch' | 'deleteOptions' | 'scale';

/** Query parameters of each option struct, as upstream's AddObjectParams lists them. */
const LIST_OPTIONS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];
const WRITE_OPTIONS = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_OPTIONS = ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'];
const OPTIONS: Record<Action, string[]> = {
  list: LIST_OPTIONS, deletecollection: LIST_OPTIONS, get: ['resourceVersion'], post: WRITE_OPTIONS, put: WRITE_OPTIONS, patch: WRITE_OPTIONS, delete: DELETE_OPTIONS,
};
/** All query parameter names the templates use (their texts are looked up once). */
export const OPTION_PARAMETER_NAMES = [...new Set([...LIST_OPTIONS, ...WRITE_OPTIONS, ...DELETE_OPTIONS])];

export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  description: string;
  action: Action;
  kind: string;
  version: string;
  /** Path and query parameters, by name (`namespace`, `name`, `pretty` and the option parameters). */
  params: string[];
  body?: { type: TypeRef; required: boolean; consumes: string[] };
  responses: Array<[code: string, text: string, type: TypeRef]>;
}

const JSON_YAML = ['application/json', 'application/yaml'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** apiserver's ToValidOperationID: letters, `_` and non-leading digits kept, other runes start a capital. */
export function operationIdPart(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let cap = capitalizeFirst;
  let i = 0;
  for (const ch of s) {
    const letter = /\p{L}/u.test(ch);
    if (letter || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += cap ? ch.toUpperCase() : ch;
      cap = false;
    } else cap = true;
    i += ch.length;
  }
  return out;
}

const VERB_PREFIXES = ['get', 'log', 'read', 'replace', 'patch', 'delete', 'watch', 'connect', 'proxy', 'list', 'create'];

/** GetOperationIDAndTags: the shortest verb prefix, then group (minus `.k8s.io`) and version, then the rest. */
function operationIdAndTag(op: string, group: string, version: string): { id: string; tag: string } {
  const verb = VERB_PREFIXES.filter((v) => op.startsWith(v)).sort((a, b) => a.length - b.length)[0] ?? '';
  const trimmed = group.endsWith('.k8s.io') ? group.slice(0, -'.k8s.io'.length) : group;
  const prefix = verb + operationIdPart(trimmed, verb !== '') + operationIdPart(version, true);
  return { id: prefix + operationIdPart(op.slice(verb.length), true), tag: `${operationIdPart(trimmed, false)}_${operationIdPart(version, false)}` };
}

/** endpoints.GetArticleForNoun with single-space padding. */
function article(noun: string): string {
  if (noun.endsWith('s') && !noun.endsWith('ss')) return ' ';
  return 'aeiou'.includes(noun[0]?.toLowerCase() ?? '') ? ' an ' : ' a ';
}

function describe(kind: string, sub: string, verb: string): string {
  const of = sub ? ` ${sub} of` : '';
  switch (verb) {
    case 'list': return `list${of} objects of kind ${kind}`;
    case 'read': case 'replace': return `${verb}${of} the specified ${kind}`;
    case 'patch': return `partially update${of} the specified ${kind}`;
    case 'create': case 'delete': return `${verb}${of}${article(kind)}${kind}`;
    case 'deletecollection': return `delete collection of${sub ? `${of} a` : ''} ${kind}`;
    default: return `${verb}${of} ${kind}`;
  }
}

/** The routes apiextensions-apiserver's OpenAPI builder declares for `version` of `spec`, in its order. */
export function customRoutes(spec: CustomResourceSpec, version: string): Route[] {
  const routes: Route[] = [];
  const { group, kind, plural } = spec;
  const ns = spec.namespaced ? 'Namespaced' : '';
  const add = (root: string, suffix: string, method: Route['method'], action: Action, verb: string, sample: TypeRef, opName?: string): Route => {
    const sub = suffix.split('/')[2] ?? '';
    const op = opName ?? `${verb}${ns}${kind}${sub ? sub[0].toUpperCase() + sub.slice(1) : ''}`;
    const { id, tag } = operationIdAndTag(op, group, version);
    const path = root + suffix;
    const params = [...(path.includes('{namespace}') ? ['namespace'] : []), ...(path.includes('{name}') ? ['name'] : []), 'pretty', ...OPTIONS[action]];
    const responses: Route['responses'] = [['200', 'OK', sample]];
    if (action === 'post') responses.push(['201', 'Created', sample], ['202', 'Accepted', sample]);
    if (action === 'put') responses.push(['201', 'Created', sample]);
    if (action === 'delete') responses.push(['202', 'Accepted', sample]);
    const r: Route = { method, path, operationId: id, tag, description: describe(kind, sub, verb), action, kind, version, params, responses };
    if (action === 'post' || action === 'put') r.body = { type: sample, required: true, consumes: JSON_YAML };
    if (action === 'patch') r.body = { type: 'patch', required: true, consumes: PATCH_TYPES };
    if (action === 'delete') r.body = { type: 'deleteOptions', required: false, consumes: JSON_YAML };
    routes.push(r);
    return r;
  };
  let root = `/apis/${group}/${version}/${plural}`;
  if (spec.namespaced) {
    add(root, '', 'get', 'list', 'list', 'list', `list${kind}ForAllNamespaces`);
    root = `/apis/${group}/${version}/namespaces/{namespace}/${plural}`;
  }
  add(root, '', 'get', 'list', 'list', 'list');
  add(root, '', 'post', 'post', 'create', 'kind');
  add(root, '', 'delete', 'deletecollection', 'deletecollection', 'status');
  add(root, '/{name}', 'get', 'get', 'read', 'kind');
  add(root, '/{name}', 'put', 'put', 'replace', 'kind');
  add(root, '/{name}', 'delete', 'delete', 'delete', 'status');
  add(root, '/{name}', 'patch', 'patch', 'patch', 'kind');
  for (const [sub, sample] of [['status', 'kind'], ['scale', 'scale']] as const) {
    if (!spec.subresources?.[sub]) continue;
    add(root, `/{name}/${sub}`, 'get', 'get', 'read', sample);
    add(root, `/{name}/${sub}`, 'put', 'put', 'replace', sample);
    add(root, `/{name}/${sub}`, 'patch', 'patch', 'patch', sample);
  }
  return routes;
}

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** The definition a route's type stands for. */
export function typeName(spec: CustomResourceSpec, version: string, t: TypeRef): string {
  switch (t) {
    case 'kind': return definitionName(spec.group, version, spec.kind);
    case 'list': return definitionName(spec.group, version, spec.listKind);
    case 'status': return `${META}.Status`;
    case 'patch': return `${META}.Patch`;
    case 'deleteOptions': return `${META}.DeleteOptions`;
    case 'scale': return SCALE;
  }
}

/** A query parameter in v3 form (`schema`), as the static documents spell it. */
export interface V3Parameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: { type?: string; uniqueItems?: boolean };
}

/** The parameters that are not option fields: worded in the builder itself. */
export function fixedParameter(name: string, kind: string): V3Parameter | undefined {
  const schema = { type: 'string', uniqueItems: true };
  if (name === 'pretty') return { name, in: 'query', description: "If 'true', then the output is pretty printed.", schema };
  if (name === 'name') return { name, in: 'path', description: `name of the ${kind}`, required: true, schema };
  if (name === 'namespace') return { name, in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema };
  return undefined;
}

const paramOrder = (a: V3Parameter, b: V3Parameter) => (a.in === b.in ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.in < b.in ? -1 : 1);

/**
 * Groups routes by path like kube-openapi: a parameter every operation of a path has moves to the path item,
 * the others stay on their operation; both lists sorted by location then name.
 */
export function splitParameters(routes: Route[], param: (name: string, kind: string) => V3Parameter | undefined): Map<string, { common: V3Parameter[]; ops: Array<{ route: Route; params: V3Parameter[] }> }> {
  const byPath = new Map<string, Route[]>();
  for (const r of routes) {
    const list = byPath.get(r.path);
    if (list) list.push(r);
    else byPath.set(r.path, [r]);
  }
  const out = new Map<string, { common: V3Parameter[]; ops: Array<{ route: Route; params: V3Parameter[] }> }>();
  for (const [path, rs] of byPath) {
    const shared = rs[0].params.filter((p) => rs.every((r) => r.params.includes(p)));
    const common = shared.map((p) => param(p, rs[0].kind)).filter((p): p is V3Parameter => !!p).sort(paramOrder);
    const ops = rs.map((route) => ({
      route,
      params: route.params.filter((p) => !shared.includes(p)).map((p) => param(p, route.kind)).filter((p): p is V3Parameter => !!p).sort(paramOrder),
    }));
    out.set(path, { common, ops });
  }
  return out;
}

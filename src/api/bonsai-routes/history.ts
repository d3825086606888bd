// Time travel over the change log, for the dashboard's timeline:
//   GET /bonsai/v1/history                                  {"oldest","newest"}
//   GET /bonsai/v1/history/state?revision=N&resources=a,b    the objects as they were at revision N
//   GET /bonsai/v1/history/changes?from=A&to=B&resources=…   the changes A < rv <= B, a page at a time
// Every resource asked for needs cluster-wide `list`. Query parameters are hostile input: parsed strictly, bounded.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, badRequest, gone } from '../../machinery/errors.js';
import type { Registry } from '../../registry/registry.js';
import { storageKey, type ResourceDef } from '../../registry/resource.js';
import { StorageError } from '../../storage/errors.js';
import type { ChangeHistory } from '../../storage/history.js';
import { rfc3339 } from '../../util/clock.js';
import { authorize } from './authorize.js';

export const defaultHistoryResources = ['nodes', 'pods', 'deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs'];
export const maxHistoryResources = 32;
export const maxChangesPage = 5000;

const resourceName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const revisionText = /^\d{1,15}$/;

interface Asked {
  /** The name as asked (`pods`, `deployments.apps`), the answer's key. */
  name: string;
  def: ResourceDef;
}

/** The last value of a query parameter (as Kubernetes reads repeated parameters), from the raw query string. */
function params(req: FastifyRequest): URLSearchParams {
  const qi = req.url.indexOf('?');
  return new URLSearchParams(qi < 0 ? '' : req.url.slice(qi + 1));
}

function last(q: URLSearchParams, name: string): string | undefined {
  const all = q.getAll(name);
  return all.length ? all[all.length - 1] : undefined;
}

function revisionParam(q: URLSearchParams, name: string): number | undefined {
  const v = last(q, name);
  if (v === undefined || v === '') return undefined;
  if (!revisionText.test(v)) throw badRequest(`invalid ${name} "${v.slice(0, 64)}": must be a revision (a non-negative integer)`);
  return Number(v);
}

/** `pods` or `deployments.apps`: a served resource (the preferred group's first when unqualified). */
function resolve(reg: Registry, name: string): ResourceDef {
  const dot = name.indexOf('.');
  const plural = dot < 0 ? name : name.slice(0, dot);
  const group = dot < 0 ? undefined : name.slice(dot + 1);
  let found: ResourceDef | undefined;
  for (const def of reg.defs) {
    if (def.plural !== plural || (group !== undefined && def.group !== group)) continue;
    // Unqualified: the core group first, then whichever group was declared first.
    if (!found || (group === undefined && def.group === '' && found.group !== '')) found = def;
  }
  if (!found) throw badRequest(`the server doesn't have a resource type "${name}"`);
  return found;
}

function resourcesParam(reg: Registry, req: FastifyRequest, q: URLSearchParams): Asked[] {
  const v = last(q, 'resources');
  const names = v === undefined || v === '' ? defaultHistoryResources : v.split(',');
  if (names.length > maxHistoryResources) throw badRequest(`too many resources: at most ${maxHistoryResources}`);
  const out: Asked[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (name.length > 253 || !resourceName.test(name)) throw badRequest(`invalid resource "${name.slice(0, 64)}"`);
    const def = resolve(reg, name);
    authorize(reg, req, { verb: 'list', group: def.group, version: def.version, resource: def.plural });
    // One answer key per stored resource (`deployments` and `deployments.apps` are one).
    if (seen.has(storageKey(def))) continue;
    seen.add(storageKey(def));
    out.push({ name, def });
  }
  return out;
}

function translate(err: unknown): unknown {
  // Below the compaction horizon: 410 Expired, as a watch from a compacted revision.
  if (err instanceof StorageError && err.code === 'Expired') return gone(err.message);
  return err;
}

/** The store's change log, or 404 when the backend keeps none (etcd: compaction keeps no history to travel). */
function historyOf(reg: Registry): ChangeHistory {
  const h = reg.store.history();
  if (!h) throw new ApiError(404, 'NotFound', 'time travel is not available: the storage backend (etcd) keeps no change log');
  return h;
}

function send(reply: FastifyReply, body: string): void {
  reply.header('Cache-Control', 'no-store').type('application/json').send(body);
}

export function serveBounds(reg: Registry, _req: FastifyRequest, reply: FastifyReply): void {
  send(reply, JSON.stringify(historyOf(reg).bounds()));
}

export function serveState(reg: Registry, req: FastifyRequest, reply: FastifyReply): void {
  const q = params(req);
  const asked = resourcesParam(reg, req, q);
  const history = historyOf(reg);
  const { newest } = history.bounds();
  const rv = revisionParam(q, 'revision') ?? newest;
  if (rv > newest) throw badRequest(`revision ${rv} is newer than the newest revision ${newest}`);
  let slices;
  try {
    slices = history.stateAt(rv, asked.map((a) => storageKey(a.def)));
  } catch (err) {
    throw translate(err);
  }
  const ms = history.timeOf(rv);
  // The stored JSON texts go out as they are: no parse, no re-serialization.
  const parts = slices.map((s, i) => `${JSON.stringify(asked[i].name)}:[${s.objects.join(',')}]`);
  send(reply, `{"revision":${rv},"time":${ms === undefined ? 'null' : JSON.stringify(rfc3339(new Date(ms)))},"objects":{${parts.join(',')}}}`);
}

export function serveChanges(reg: Registry, req: FastifyRequest, reply: FastifyReply): void {
  const q = params(req);
  const asked = resourcesParam(reg, req, q);
  const history = historyOf(reg);
  const { oldest, newest } = history.bounds();
  const from = revisionParam(q, 'from') ?? oldest;
  const to = Math.min(revisionParam(q, 'to') ?? newest, newest);
  if (from > to) throw badRequest(`from (${from}) is after to (${to})`);
  const limitText = last(q, 'limit');
  let limit = maxChangesPage;
  if (limitText !== undefined && limitText !== '') {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1) throw badRequest(`invalid limit "${limitText.slice(0, 64)}": must be a positive integer`);
    limit = Math.min(Number(limitText), maxChangesPage);
  }
  const cont = last(q, 'continue');
  let after = from;
  if (cont !== undefined && cont !== '') {
    if (!revisionText.test(cont) || Number(cont) < from || Number(cont) > to) throw badRequest(`invalid continue token "${cont.slice(0, 64)}"`);
    after = Number(cont);
  }
  const nameOf = new Map(asked.map((a) => [storageKey(a.def), a.name]));
  let page;
  try {
    page = history.changes(after, to, [...nameOf.keys()], limit);
  } catch (err) {
    throw translate(err);
  }
  const rows = page.changes.map((c) => `{"revision":${c.rv},"type":${JSON.stringify(c.type)},"resource":${JSON.stringify(nameOf.get(c.resource) ?? c.resource)},"object":${c.json}}`);
  const next = page.next === undefined ? '' : `,"continue":"${page.next}"`;
  send(reply, `{"from":${from},"to":${to},"changes":[${rows.join(',')}]${next}}`);
}

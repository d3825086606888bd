// A small JSON client for lessons: the lesson runs in its own process and talks to a running `bonsai serve` over
// HTTP(S), authenticating as the kubeconfig says (see cli/node-command.ts for how the target is read).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Target } from '../cli/node-command.js';
import { isRecord } from '../machinery/types.js';

export type Json = Record<string, unknown>;

/** The cluster operations a lesson needs; tests give a fake. */
export interface LessonApi {
  /** The server's address as the lesson reaches it (an add-on in the server may be pointed back at it). */
  readonly server?: string;
  /** The object at `path`, or undefined on 404. */
  get(path: string): Promise<Json | undefined>;
  /** The items of a list at `path` (query string allowed). */
  list(path: string): Promise<Json[]>;
  create(path: string, body: Json): Promise<Json>;
  /** A JSON merge patch. */
  patch(path: string, body: Json): Promise<Json>;
  /** Deletes (in the background unless `foreground`, at once with gracePeriodSeconds 0); a 404 is fine. */
  remove(path: string, opts?: RemoveOptions): Promise<void>;
}

export interface RemoveOptions {
  gracePeriodSeconds?: number;
  /** The object goes only once its dependents are gone. */
  foreground?: boolean;
}

/** Largest response body read (a list of a big cluster still fits); more is an error, not a memory spike. */
const maxBodyBytes = 64 * 1024 * 1024;
const requestTimeoutMs = 15_000;

export class ApiRequestError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class HttpLessonApi implements LessonApi {
  constructor(private readonly target: Target) {}

  get server(): string {
    return this.target.server;
  }

  async get(path: string): Promise<Json | undefined> {
    const r = await this.send('GET', path);
    if (r.status === 404) return undefined;
    return this.json(r, path);
  }

  async list(path: string): Promise<Json[]> {
    const body = this.json(await this.send('GET', path), path);
    return Array.isArray(body.items) ? body.items.filter(isRecord) : [];
  }

  async create(path: string, body: Json): Promise<Json> {
    return this.json(await this.send('POST', path, body, 'application/json'), path);
  }

  async patch(path: string, body: Json): Promise<Json> {
    return this.json(await this.send('PATCH', path, body, 'application/merge-patch+json'), path);
  }

  async remove(path: string, opts: RemoveOptions = {}): Promise<void> {
    const options: Json = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: opts.foreground ? 'Foreground' : 'Background' };
    if (opts.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = opts.gracePeriodSeconds;
    const r = await this.send('DELETE', path, options, 'application/json');
    if (r.status !== 404) this.json(r, path);
  }

  private json(r: { status: number; text: string }, path: string): Json {
    let body: unknown;
    try {
      body = JSON.parse(r.text);
    } catch {
      body = undefined;
    }
    if (r.status < 200 || r.status >= 300) {
      const message = isRecord(body) && typeof body.message === 'string' ? body.message : r.text.trim().slice(0, 500) || `HTTP ${r.status}`;
      throw new ApiRequestError(r.status, `${path}: ${message}`);
    }
    if (!isRecord(body)) throw new ApiRequestError(r.status, `${path}: the server answered with no JSON object`);
    return body;
  }

  private send(method: string, path: string, body?: Json, contentType?: string): Promise<{ status: number; text: string }> {
    const url = new URL(`${this.target.server.replace(/\/$/, '')}${path}`);
    const payload = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    if (contentType) headers['content-type'] = contentType;
    const t = this.target;
    if (t.token && !(t.cert && url.protocol === 'https:')) headers.authorization = `Bearer ${t.token}`;
    return new Promise((resolve, reject) => {
      const onResponse = (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > maxBodyBytes) {
            res.destroy(new Error(`${path}: response larger than ${maxBodyBytes} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      };
      const options = { method, headers, timeout: requestTimeoutMs };
      const req = url.protocol === 'https:'
        ? httpsRequest(url, { ...options, ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: !t.insecureSkipVerify }, onResponse)
        : httpRequest(url, options, onResponse);
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${requestTimeoutMs / 1000} s`)));
      req.on('error', (e) => reject(new Error(`cannot reach the server at ${t.server}: ${e.message}`)));
      req.end(payload);
    });
  }
}

// The web dashboard under /ui/: the static bundle written by scripts/build-ui.mjs into dist/ui, read from disk on
// first request and cached (start-up reads nothing). The bundle is public code: it holds no data and talks to the
// ordinary API from the browser, so it widens nothing the API allows.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The files the bundle consists of, and their types: nothing else under /ui/ is served. */
const assets: ReadonlyMap<string, string> = new Map([
  ['index.html', 'text/html; charset=utf-8'],
  ['app.js', 'text/javascript; charset=utf-8'],
  ['app.css', 'text/css; charset=utf-8'],
]);

import { uiDistDir } from '../util/paths.js';

/** dist/ui under the package root (the tsc output and the server bundle alike). */
export const defaultUiDir = uiDistDir;

export interface UiRoutesOptions {
  /** Where the bundle is (default: dist/ui next to the compiled server). */
  dir?: string;
}

/** Whether a request path is one of the dashboard's (they are served to anyone, as the bundle is public). */
export function isUiPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return path === '/ui' || path.startsWith('/ui/');
}

export function registerUiRoutes(app: FastifyInstance, opts: UiRoutesOptions = {}): void {
  const dir = opts.dir ?? defaultUiDir;
  // At most the three assets: a bounded cache, filled on first request.
  const cache = new Map<string, Promise<Buffer>>();
  const load = (name: string): Promise<Buffer> => {
    let p = cache.get(name);
    if (!p) {
      p = readFile(join(dir, name));
      // A missing bundle (a build without the UI step) is retried on the next request.
      p.catch(() => cache.delete(name));
      cache.set(name, p);
    }
    return p;
  };
  const send = async (name: string, reply: FastifyReply) => {
    const type = assets.get(name);
    if (!type) return reply.code(404).type('text/plain; charset=utf-8').send('404 page not found\n');
    let body: Buffer;
    try {
      body = await load(name);
    } catch {
      return reply.code(404).type('text/plain; charset=utf-8').send('the dashboard bundle is missing: run npm run build\n');
    }
    return reply
      .code(200).type(type)
      .header('Cache-Control', name === 'index.html' ? 'no-cache' : 'max-age=300')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
      .send(body);
  };
  // The router ignores trailing slashes: one route answers both, /ui redirecting so relative asset URLs resolve.
  app.get('/ui/', async (req, reply) => (req.url.split('?', 1)[0] === '/ui' ? reply.redirect('/ui/', 302) : send('index.html', reply)));
  app.get('/ui/:file', async (req, reply) => {
    const file = (req.params as { file?: unknown }).file;
    return send(typeof file === 'string' ? file : '', reply);
  });
}

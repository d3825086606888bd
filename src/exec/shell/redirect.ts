// A command's redirections (`>`, `>>`, `<`, `n>&m`): output to a file is collected and written when the command
// ends, as one write.
import type { Redir } from './ast.js';
import { Collector, bufferIn, maxOutputBytes, nullOut, type Io, type Out } from './io.js';
import { FsError, resolvePath, type Vfs } from '../vfs.js';
import type { Expander } from './expand.js';

/** What redirections use of the shell (interp.ts's Shell): its word expansion, working directory and files. */
export interface RedirectingShell {
  readonly ex: Pick<Expander, 'string'>;
  readonly cwd: string;
  readonly host: { readonly fs: Vfs; nowMs(): number };
  status: number;
}

/** A command's streams after its redirections, and what writes its files' content once it is done. */
export type Redirected = Io & { finish(): void };

/** For a command with no redirections. */
export const noFiles = (): void => undefined;

/** Sets up a command's redirections; `finish` writes collected file output once the command is done. */
export async function redirect(sh: RedirectingShell, redirs: Redir[], io: Io): Promise<Redirected> {
  const out: Io = { ...io };
  const files: { fd: number; path: string; append: boolean; c: Collector }[] = [];
  for (const r of redirs) {
    const target = await sh.ex.string(r.target, io);
    if (r.op === '>&') {
      const src = target === '1' ? out.stdout : target === '2' ? out.stderr : undefined;
      if (!src) throw new FsError(target, 'No such file or directory');
      if (r.fd === 1) out.stdout = src;
      else if (r.fd === 2) out.stderr = src;
      continue;
    }
    const path = resolvePath(sh.cwd, target);
    if (r.op === '<') {
      out.stdin = target === '/dev/null' ? bufferIn(Buffer.alloc(0)) : bufferIn(sh.host.fs.readFile(path));
      continue;
    }
    let sink: Out;
    if (path === '/dev/null') sink = nullOut;
    else if (path === '/dev/stdout') sink = io.stdout;
    else if (path === '/dev/stderr') sink = io.stderr;
    else {
      // Fail now as sh does when the file cannot be created; the content is written when the command ends.
      sh.host.fs.writeFile(path, Buffer.alloc(0), r.op === '>>', sh.host.nowMs());
      const c = new Collector(maxOutputBytes);
      files.push({ fd: r.fd, path, append: true, c });
      sink = c;
    }
    if (r.fd === 1) out.stdout = sink;
    else if (r.fd === 2) out.stderr = sink;
  }
  return {
    ...out,
    finish: () => {
      for (const f of files) {
        try {
          sh.host.fs.writeFile(f.path, f.c.buffer(), f.append, sh.host.nowMs());
        } catch (e) {
          if (!(e instanceof FsError)) throw e;
          io.stderr.write(`sh: write error: ${e.reason}\n`);
          sh.status = 1;
        }
      }
    },
  };
}

// The container's simulated filesystem: an in-memory tree, read-only except in writable directories (emptyDir
// volumes, /tmp), whose contents persist across exec sessions and are bounded by a quota.

export interface Quota {
  used: number;
  readonly maxBytes: number;
  files: number;
  readonly maxFiles: number;
}

export type FsNode = FileNode | DirNode;

export interface FileNode {
  type: 'file';
  data: Buffer;
  mode: number;
  mtimeMs: number;
}

export interface DirNode {
  type: 'dir';
  children: Map<string, FsNode>;
  mode: number;
  mtimeMs: number;
  /** Set on a writable directory and everything made inside it. */
  quota?: Quota;
}

export const maxFileBytes = 1 << 20;

export function newQuota(maxBytes = 4 << 20, maxFiles = 1000): Quota {
  return { used: 0, maxBytes, files: 0, maxFiles };
}

export function dir(mode = 0o755, mtimeMs = 0, quota?: Quota): DirNode {
  return { type: 'dir', children: new Map(), mode, mtimeMs, quota };
}

export class FsError extends Error {
  constructor(readonly path: string, readonly reason: 'No such file or directory' | 'Not a directory' | 'Is a directory' | 'Read-only file system' | 'No space left on device' | 'File exists' | 'File too large' | 'Directory not empty') {
    super(`${path}: ${reason}`);
  }
}

/** `p` made absolute against `cwd`, with `.`, `..` and repeated slashes resolved. */
export function resolvePath(cwd: string, p: string): string {
  const parts = (p.startsWith('/') ? p : `${cwd}/${p}`).split('/');
  const out: string[] = [];
  for (const s of parts) {
    if (s === '' || s === '.') continue;
    if (s === '..') out.pop();
    else out.push(s);
  }
  return `/${out.join('/')}`;
}

export class Vfs {
  constructor(readonly root: DirNode) {}

  lookup(path: string): FsNode | undefined {
    let node: FsNode = this.root;
    for (const seg of path.split('/').filter(Boolean)) {
      if (node.type !== 'dir') return undefined;
      const next = node.children.get(seg);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  /** Creates directories along `path` (while building the tree: no quota, no read-only checks). */
  mkdirp(path: string, mode = 0o755): DirNode {
    let node: DirNode = this.root;
    for (const seg of path.split('/').filter(Boolean)) {
      let next = node.children.get(seg);
      if (!next || next.type !== 'dir') node.children.set(seg, (next = dir(mode, node.mtimeMs, node.quota)));
      node = next;
    }
    return node;
  }

  /** Puts a file (or a whole directory node, for a mount) at `path` while building the tree. */
  put(path: string, node: FsNode): void {
    const i = path.lastIndexOf('/');
    this.mkdirp(path.slice(0, i)).children.set(path.slice(i + 1), node);
  }

  readFile(path: string): Buffer {
    const n = this.lookup(path);
    if (!n) throw new FsError(path, 'No such file or directory');
    if (n.type === 'dir') throw new FsError(path, 'Is a directory');
    return n.data;
  }

  /** Writes (or appends to) a file in a writable directory. */
  writeFile(path: string, data: Buffer, append: boolean, nowMs: number): void {
    const i = path.lastIndexOf('/');
    const parent = this.lookup(path.slice(0, i) || '/');
    const name = path.slice(i + 1);
    if (!parent) throw new FsError(path, 'No such file or directory');
    if (parent.type !== 'dir') throw new FsError(path, 'Not a directory');
    const q = parent.quota;
    if (!q || !name) throw new FsError(path, 'Read-only file system');
    const existing = parent.children.get(name);
    if (existing?.type === 'dir') throw new FsError(path, 'Is a directory');
    const next = append && existing ? Buffer.concat([existing.data, data]) : data;
    if (next.length > maxFileBytes) throw new FsError(path, 'File too large');
    const delta = next.length - (existing?.data.length ?? 0);
    if (q.used + delta > q.maxBytes || (!existing && q.files >= q.maxFiles)) throw new FsError(path, 'No space left on device');
    q.used += delta;
    if (!existing) q.files++;
    parent.children.set(name, { type: 'file', data: next, mode: existing?.mode ?? 0o644, mtimeMs: nowMs });
  }

  mkdir(path: string, nowMs: number): void {
    const i = path.lastIndexOf('/');
    const parent = this.lookup(path.slice(0, i) || '/');
    const name = path.slice(i + 1);
    if (!parent) throw new FsError(path, 'No such file or directory');
    if (parent.type !== 'dir') throw new FsError(path, 'Not a directory');
    if (parent.children.has(name)) throw new FsError(path, 'File exists');
    const q = parent.quota;
    if (!q || !name) throw new FsError(path, 'Read-only file system');
    if (q.files >= q.maxFiles) throw new FsError(path, 'No space left on device');
    q.files++;
    parent.children.set(name, dir(0o755, nowMs, q));
  }

  remove(path: string, recursive: boolean): void {
    const i = path.lastIndexOf('/');
    const parent = this.lookup(path.slice(0, i) || '/');
    const name = path.slice(i + 1);
    const node = parent?.type === 'dir' ? parent.children.get(name) : undefined;
    if (!parent || parent.type !== 'dir' || !node) throw new FsError(path, 'No such file or directory');
    const q = parent.quota;
    if (!q) throw new FsError(path, 'Read-only file system');
    if (node.type === 'dir' && node.children.size && !recursive) throw new FsError(path, 'Directory not empty');
    const release = (n: FsNode): void => {
      q.files--;
      if (n.type === 'file') q.used -= n.data.length;
      else for (const c of n.children.values()) release(c);
    };
    release(node);
    parent.children.delete(name);
  }
}

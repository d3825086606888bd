// The simulated registry the kubelet pulls from: it knows the tags of well-known images (known-images.ts) and
// answers a pull of an unknown tag of a known repository as containerd does (NotFound). Repositories it does not
// know pull whatever they are given, unless the cluster file says otherwise. The cluster file's `registry`
// section adds repositories and tags, names references that always fail, and sets what unknown repositories do:
//
//   registry:
//     unknownRepositories: pull          # pull (default) | fail
//     images: { example.com/team/app: [v1, v2] }
//     failing: [nginx:1.25.3]
import { isRecord } from '../../machinery/types.js';
import { normalizeImage } from '../container-ids.js';
import { knownImages } from './known-images.js';

export interface RegistrySettings {
  unknownRepositories: 'pull' | 'fail';
  /** Extra repositories (normalized) and their tags. */
  images: Map<string, Set<string>>;
  /** Normalized references that never pull. */
  failing: Set<string>;
}

export type PullResult = { ok: true } | { ok: false; message: string };

const maxRepositories = 1000;
const maxTags = 1000;
const digestRe = /^sha256:[0-9a-f]{64}$/;

export const defaultRegistrySettings = (): RegistrySettings => ({ unknownRepositories: 'pull', images: new Map(), failing: new Set() });

/** Repository and tag/digest of a normalized reference. */
export function splitReference(image: string): { ref: string; repo: string; tag?: string; digest?: string } {
  const ref = normalizeImage(image.trim());
  const at = ref.indexOf('@');
  if (at >= 0) {
    const name = ref.slice(0, at);
    const colon = name.lastIndexOf(':');
    const repo = colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
    return { ref, repo, digest: ref.slice(at + 1) };
  }
  const colon = ref.lastIndexOf(':');
  return { ref, repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
}

/** containerd's answer to a reference that does not resolve, as the kubelet wraps it. */
export function notFoundMessage(ref: string): string {
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}

function accessDeniedMessage(ref: string): string {
  return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`;
}

export class ImageRegistry {
  constructor(private readonly settings: RegistrySettings = defaultRegistrySettings()) {}

  private tagsOf(repo: string): Set<string> | string[] | undefined {
    return this.settings.images.get(repo) ?? (Object.prototype.hasOwnProperty.call(knownImages, repo) ? knownImages[repo] : undefined);
  }

  /** Whether the repository is one the registry knows the tags of. */
  knows(image: string): boolean {
    return this.tagsOf(splitReference(image).repo) !== undefined;
  }

  /** What pulling `image` does. */
  pull(image: string): PullResult {
    const { ref, repo, tag, digest } = splitReference(image);
    if (this.settings.failing.has(ref)) return { ok: false, message: notFoundMessage(ref) };
    const tags = this.tagsOf(repo);
    if (!tags) return this.settings.unknownRepositories === 'fail' ? { ok: false, message: accessDeniedMessage(ref) } : { ok: true };
    if (digest !== undefined) return digestRe.test(digest) ? { ok: true } : { ok: false, message: notFoundMessage(ref) };
    const has = tags instanceof Set ? tags.has(tag ?? '') : tags.includes(tag ?? '');
    return has ? { ok: true } : { ok: false, message: notFoundMessage(ref) };
  }
}

/** Reads the cluster file's `registry` section; problems are pushed to `errors` as `registry.<field>: …`. */
export function readRegistrySettings(doc: unknown, errors: string[]): RegistrySettings {
  const out = defaultRegistrySettings();
  if (doc === undefined || doc === null) return out;
  if (!isRecord(doc)) {
    errors.push('registry: must be a mapping (unknownRepositories, images, failing)');
    return out;
  }
  for (const k of Object.keys(doc)) {
    if (!['unknownRepositories', 'images', 'failing'].includes(k)) errors.push(`registry.${k}: unknown field (expected one of unknownRepositories, images, failing)`);
  }
  if (doc.unknownRepositories !== undefined) {
    if (doc.unknownRepositories === 'pull' || doc.unknownRepositories === 'fail') out.unknownRepositories = doc.unknownRepositories;
    else errors.push('registry.unknownRepositories: must be pull or fail');
  }
  if (doc.images !== undefined) {
    if (!isRecord(doc.images)) errors.push('registry.images: must be a mapping of repositories to lists of tags');
    else {
      const entries = Object.entries(doc.images);
      if (entries.length > maxRepositories) errors.push(`registry.images: at most ${maxRepositories} repositories`);
      for (const [repo, tags] of entries.slice(0, maxRepositories)) {
        if (!Array.isArray(tags) || tags.length > maxTags || !tags.every((t) => (typeof t === 'string' && /^[\w][\w.-]{0,127}$/.test(t)) || typeof t === 'number')) {
          errors.push(`registry.images.${repo}: must be a list of tags (at most ${maxTags})`);
          continue;
        }
        const norm = splitReference(repo).repo;
        const set = new Set<string>(Object.prototype.hasOwnProperty.call(knownImages, norm) ? knownImages[norm] : []);
        for (const t of tags) set.add(String(t));
        out.images.set(norm, set);
      }
    }
  }
  if (doc.failing !== undefined) {
    if (!Array.isArray(doc.failing) || doc.failing.length > maxTags || !doc.failing.every((r) => typeof r === 'string' && r !== '')) {
      errors.push(`registry.failing: must be a list of image references (at most ${maxTags})`);
    } else for (const r of doc.failing as string[]) out.failing.add(splitReference(r).ref);
  }
  return out;
}

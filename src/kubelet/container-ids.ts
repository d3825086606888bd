// Deterministic runtime identifiers: image references and digests as containerd reports them, container ids.
import { createHash } from 'node:crypto';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** `nginx` -> `docker.io/library/nginx:latest`; `ghcr.io/a/b:1` stays; digests are kept. */
export function normalizeImage(image: string): string {
  let name = image;
  let suffix = '';
  const at = name.indexOf('@');
  if (at >= 0) {
    suffix = name.slice(at);
    name = name.slice(0, at);
  }
  const slash = name.indexOf('/');
  const first = slash >= 0 ? name.slice(0, slash) : '';
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasRegistry) name = `docker.io/${slash >= 0 ? '' : 'library/'}${name}`;
  const lastPart = name.slice(name.lastIndexOf('/') + 1);
  if (!suffix && !lastPart.includes(':')) name += ':latest';
  return name + suffix;
}

/** The repository without tag: `docker.io/library/nginx`. */
function repository(image: string): string {
  const n = normalizeImage(image);
  const at = n.indexOf('@');
  const noDigest = at >= 0 ? n.slice(0, at) : n;
  const colon = noDigest.lastIndexOf(':');
  return colon > noDigest.lastIndexOf('/') ? noDigest.slice(0, colon) : noDigest;
}

export function imageID(image: string): string {
  const n = normalizeImage(image);
  if (n.includes('@')) return `${repository(image)}${n.slice(n.indexOf('@'))}`;
  return `${repository(image)}@sha256:${sha(n)}`;
}

const knownSizes: Record<string, number> = {
  'docker.io/library/nginx': 72_188_133,
  'docker.io/library/busybox': 2_223_686,
  'docker.io/library/alpine': 3_653_486,
  'docker.io/library/redis': 45_096_413,
  'docker.io/library/ubuntu': 29_754_422,
  'docker.io/library/postgres': 158_502_170,
  'docker.io/library/httpd': 58_291_920,
  'registry.k8s.io/pause': 320_368,
};

/** A plausible, stable compressed image size in bytes. */
export function imageSize(image: string): number {
  const known = knownSizes[repository(image)];
  if (known) return known;
  return 5_000_000 + (parseInt(sha(normalizeImage(image)).slice(0, 8), 16) % 200_000_000);
}

export function containerID(podUid: string, container: string, restartCount: number): string {
  return `containerd://${sha(`${podUid}/${container}/${restartCount}`)}`;
}


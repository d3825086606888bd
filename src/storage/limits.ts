// Limits every storage backend enforces alike.
import { StorageError } from './errors.js';

/** The largest object stored, as etcd's default request limit (--max-request-bytes, 1.5 MiB) bounds it. */
export const maxObjectBytes = 1.5 * 1024 * 1024;

/** Throws StorageError TooLarge, in etcd's words, when an object's JSON text is over `maxObjectBytes`. */
export function checkObjectSize(json: string): void {
  // The UTF-16 length bounds the byte length from below: most texts are measured without encoding them.
  if (json.length > maxObjectBytes && Buffer.byteLength(json) > maxObjectBytes) throw new StorageError('TooLarge', 'etcdserver: request is too large');
}

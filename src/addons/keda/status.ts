// Writes of a KEDA object's status: a mutation of a copy of the current status, written only when it changed.
import type { Client } from '../../client/client.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';

export async function patchStatus<S extends object>(client: Client, ref: string, namespace: string, name: string, mutate: (status: S) => void): Promise<KObject | undefined> {
  try {
    return await client.guaranteedUpdate(ref, namespace, name, (cur) => {
      const before = JSON.stringify(cur.status ?? {});
      const status = structuredClone((cur.status ?? {}) as S);
      mutate(status);
      return JSON.stringify(status) === before ? cur : { ...cur, status };
    }, { subresource: 'status' });
  } catch (err) {
    if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined;
    throw err;
  }
}

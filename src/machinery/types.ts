// Kubernetes object types are generated at build time from the 1.35 OpenAPI the project ships (scripts/gen-types.mjs).
// This file re-exports the handful used generically and defines the loose shape every stored object has.
import type { ObjectMeta, OwnerReference, Status, StatusCause, LabelSelector } from '../generated/k8s/meta/v1.js';

export type { ObjectMeta, OwnerReference, Status, StatusCause, LabelSelector };

/** A type with its readonly fields writable (the server is the one that sets server-set fields). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
export type Meta = Mutable<ObjectMeta>;

/** What names an object: any kind's type (generated, or an add-on's interface) and KObject are one. */
export interface Referable {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
}

/** Any Kubernetes object as stored: apiVersion/kind/metadata plus arbitrary fields. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  [field: string]: unknown;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `obj` without its resourceVersion: what an in-process update's mutation returns to be read and judged again should
 * the object change before the write lands (another process's write, on etcd), as upstream's guaranteed updates are.
 */
export function unpinned(obj: KObject): KObject {
  const { resourceVersion: _pinned, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

// Opaque CEL values (quantity, url, ip, cidr, semver, named format, optional) as protobuf messages built at run
// time: @bufbuild/cel types every value, and a message type is its only extension point. Each message holds a
// canonical string, so `==` compares values; the parsed form is cached beside the message.
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { objectType, type CelObjectType } from '@bufbuild/cel';

const names = {
  quantity: 'kubernetes.Quantity', url: 'kubernetes.URL', ip: 'net.IP', cidr: 'net.CIDR',
  semver: 'kubernetes.Semver', format: 'kubernetes.NamedFormat', optional: 'optional_type',
  authorizer: 'kubernetes.authorization.Authorizer', pathCheck: 'kubernetes.authorization.PathCheck',
  groupCheck: 'kubernetes.authorization.GroupCheck', resourceCheck: 'kubernetes.authorization.ResourceCheck',
  decision: 'kubernetes.authorization.Decision',
} as const;
export type OpaqueKind = keyof typeof names;

// One proto file per package; every message has a single string field `v` (the canonical text).
function buildRegistry() {
  const byPackage = new Map<string, string[]>();
  for (const full of Object.values(names)) {
    const dot = full.lastIndexOf('.');
    const pkg = dot < 0 ? '' : full.slice(0, dot);
    byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), full.slice(dot + 1)]);
  }
  const files = [...byPackage].map(([pkg, msgs]) => create(FileDescriptorProtoSchema, {
    name: `bonsai_cel_${pkg || 'root'}.proto`, package: pkg, syntax: 'proto3',
    messageType: msgs.map((name) => ({ name, field: [{ name: 'v', number: 1, type: 9, label: 1, jsonName: 'v' }] })),
  }));
  const descs = new Map<OpaqueKind, DescMessage>();
  for (const f of files) {
    const reg = createFileRegistry(f, () => undefined);
    for (const [kind, full] of Object.entries(names) as [OpaqueKind, string][]) {
      const d = reg.getMessage(full);
      if (d) descs.set(kind, d);
    }
  }
  return descs;
}

const descs = buildRegistry();
const desc = (k: OpaqueKind): DescMessage => descs.get(k)!;
export const opaqueTypes: Record<OpaqueKind, CelObjectType> = Object.fromEntries(
  (Object.keys(names) as OpaqueKind[]).map((k) => [k, objectType(desc(k))]),
) as Record<OpaqueKind, CelObjectType>;

// Parsed payloads (a Quantity's rational, an optional's value) keyed by the message object.
const payloads = new WeakMap<object, unknown>();

export function makeOpaque(kind: OpaqueKind, canonical: string, payload?: unknown): ReflectMessage {
  const d = desc(kind);
  const msg = create(d, { v: canonical } as never);
  if (payload !== undefined) payloads.set(msg, payload);
  return reflect(d, msg);
}

export function opaqueKind(v: unknown): OpaqueKind | undefined {
  if (typeof v !== 'object' || v === null || !('desc' in v)) return undefined;
  const name = (v as { desc: { typeName?: string } }).desc.typeName;
  for (const [k, n] of Object.entries(names)) if (n === name) return k as OpaqueKind;
  return undefined;
}

export function opaqueText(v: ReflectMessage): string {
  return String((v.message as unknown as { v: string }).v);
}

export function opaquePayload<T>(v: ReflectMessage): T | undefined {
  return payloads.get(v.message) as T | undefined;
}

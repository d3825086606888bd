// A protobuf message decoder driven by protobufjs's reflection (Type/Field), used instead of protobufjs's
// generated decoders: it checks each field's wire type (as gogo's generated Unmarshal does), bounds how deeply
// messages nest, and stores map keys as own properties (a ConfigMap key `__proto__` is an ordinary key, as in
// Go). The output has protobufjs's shape with keepCase names: 64-bit integers as bigint, bytes as Uint8Array,
// enums as numbers, repeated fields as arrays, maps as objects; absent fields are absent.
import type { Field, MapField, Type } from 'protobufjs';
import { badRequest } from '../machinery/errors.js';
import { maxProtobufDepth } from '../machinery/depth-limits.js';
import { setOwn } from '../util/own.js';

type Msg = Record<string, unknown>;
/** What the decoder reads of a Field or MapField. */
type FieldInfo = Pick<Field, 'name' | 'type' | 'resolvedType'>;

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

const scalarWire: Record<string, number> = {
  double: I64, float: I32, int32: VARINT, uint32: VARINT, sint32: VARINT, fixed32: I32, sfixed32: I32,
  int64: VARINT, uint64: VARINT, sint64: VARINT, fixed64: I64, sfixed64: I64, bool: VARINT, string: LEN, bytes: LEN,
};

const truncated = () => badRequest('unable to decode protobuf body: unexpected EOF');

class Cursor {
  constructor(readonly buf: Buffer, public pos: number, readonly end: number) {}

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw truncated();
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return BigInt.asUintN(64, result);
    }
    throw badRequest('unable to decode protobuf body: proto: integer overflow');
  }

  take(n: number): number {
    if (n < 0 || n > this.end - this.pos) throw truncated();
    const at = this.pos;
    this.pos += n;
    return at;
  }

  length(): number {
    const n = this.varint();
    if (n > BigInt(this.end - this.pos)) throw truncated();
    return Number(n);
  }

  skip(wire: number): void {
    if (wire === VARINT) this.varint();
    else if (wire === I64) this.take(8);
    else if (wire === LEN) this.take(this.length());
    else if (wire === I32) this.take(4);
    else throw badRequest(`unable to decode protobuf body: proto: illegal wireType ${wire}`);
  }
}

function readScalar(c: Cursor, type: string): unknown {
  switch (type) {
    case 'double': return c.buf.readDoubleLE(c.take(8));
    case 'float': return c.buf.readFloatLE(c.take(4));
    case 'fixed32': return c.buf.readUInt32LE(c.take(4));
    case 'sfixed32': return c.buf.readInt32LE(c.take(4));
    case 'fixed64': return c.buf.readBigUInt64LE(c.take(8));
    case 'sfixed64': return c.buf.readBigInt64LE(c.take(8));
    case 'string': {
      const n = c.length();
      return c.buf.toString('utf8', c.take(n), c.pos);
    }
    case 'bytes': {
      const n = c.length();
      const at = c.take(n);
      return new Uint8Array(c.buf.subarray(at, at + n));
    }
    default: {
      const v = c.varint();
      switch (type) {
        case 'bool': return v !== 0n;
        case 'uint32': return Number(BigInt.asUintN(32, v));
        case 'sint32': {
          const u = Number(BigInt.asUintN(32, v));
          return (u >>> 1) ^ -(u & 1);
        }
        case 'int64': return BigInt.asIntN(64, v);
        case 'uint64': return v;
        case 'sint64': return (v >> 1n) ^ -(v & 1n);
        default: return Number(BigInt.asIntN(32, v)); // int32 and enums
      }
    }
  }
}

const goFieldName = (f: FieldInfo) => f.name.charAt(0).toUpperCase() + f.name.slice(1);
const wrongWire = (f: FieldInfo, wire: number) => badRequest(`unable to decode protobuf body: proto: wrong wireType = ${wire} for field ${goFieldName(f)}`);

function messageTypeOf(f: FieldInfo): Type | undefined {
  const t = f.resolvedType;
  return t && 'fieldsArray' in t ? (t as Type) : undefined;
}

/** Reads one value of a field's element type (a message, an enum or a scalar) whose tag has been read. */
function readValue(c: Cursor, f: FieldInfo, typeName: string, wire: number, depth: number): unknown {
  const mt = messageTypeOf(f);
  if (mt && typeName === f.type) {
    if (wire !== LEN) throw wrongWire(f, wire);
    const n = c.length();
    const at = c.take(n);
    return decodeRange(mt, c.buf, at, at + n, depth + 1);
  }
  const expected = scalarWire[typeName] ?? VARINT; // enums are varints
  if (wire !== expected) throw wrongWire(f, wire);
  return readScalar(c, typeName);
}

function zeroOf(f: FieldInfo, typeName: string): unknown {
  if (messageTypeOf(f) && typeName === f.type) return {};
  switch (typeName) {
    case 'string': return '';
    case 'bytes': return new Uint8Array();
    case 'bool': return false;
    case 'int64': case 'uint64': case 'sint64': case 'fixed64': case 'sfixed64': return 0n;
    default: return 0;
  }
}

function readMapEntry(c: Cursor, f: MapField, depth: number): [string, unknown] {
  const n = c.length();
  const sub = new Cursor(c.buf, c.take(n), c.pos);
  let key: unknown = zeroOf(f, f.keyType);
  let value: unknown;
  while (sub.pos < sub.end) {
    const tag = sub.varint();
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (num === 1) {
      if (wire !== (scalarWire[f.keyType] ?? VARINT)) throw wrongWire(f, wire);
      key = readScalar(sub, f.keyType);
    } else if (num === 2) value = readValue(sub, f, f.type, wire, depth);
    else sub.skip(wire);
  }
  return [String(key), value === undefined ? zeroOf(f, f.type) : value];
}

/** A varint at `pos` of `buf` before `end`: [value, next position], or undefined when malformed or past 2^53. */
function peekVarint(buf: Buffer, pos: number, end: number): [number, number] | undefined {
  let v = 0;
  for (let shift = 0; shift < 53 && pos < end; shift += 7) {
    const b = buf[pos++];
    v += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return [v, pos];
  }
  return undefined;
}

/**
 * Whether the payload of an unknown length-delimited field, read as messages within messages, nests more than
 * `room` levels. Go's decoders skip such a payload unread; Bonsai refuses a chain as deep as the limit on known
 * messages, so that no nesting past it is stored or passed on. One linear pass: every field header is read once.
 */
function unknownNestsTooDeep(buf: Buffer, start: number, end: number, room: number): boolean {
  const work: [number, number, number][] = [[start, end, 1]];
  while (work.length) {
    const [from, to, depth] = work.pop()!;
    if (depth > room) return true;
    let pos = from;
    while (pos < to) {
      const tag = peekVarint(buf, pos, to);
      if (!tag || tag[0] < 8) break;
      pos = tag[1];
      const wire = tag[0] & 7;
      if (wire === LEN) {
        const len = peekVarint(buf, pos, to);
        if (!len || len[0] > to - len[1]) break;
        work.push([len[1], len[1] + len[0], depth + 1]);
        pos = len[1] + len[0];
      } else if (wire === VARINT) {
        const v = peekVarint(buf, pos, to);
        if (!v) break;
        pos = v[1];
      } else if (wire === I64) pos += 8;
      else if (wire === I32) pos += 4;
      else break;
    }
  }
  return false;
}

const tooDeep = () => badRequest(`unable to decode protobuf body: messages nest more than ${maxProtobufDepth} levels deep`);

function decodeRange(type: Type, buf: Buffer, start: number, end: number, depth: number, into: Msg = {}): Msg {
  if (depth > maxProtobufDepth) throw tooDeep();
  const c = new Cursor(buf, start, end);
  while (c.pos < c.end) {
    const tag = c.varint();
    const num = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (num < 1) throw badRequest(`unable to decode protobuf body: proto: illegal tag ${num} (wire type ${wire})`);
    const f = type.fieldsById[num];
    if (!f) {
      if (wire !== LEN) c.skip(wire);
      else {
        const n = c.length();
        const at = c.take(n);
        if (unknownNestsTooDeep(buf, at, at + n, maxProtobufDepth - depth)) throw tooDeep();
      }
      continue;
    }
    if (f.map) {
      if (wire !== LEN) throw wrongWire(f, wire);
      const map = (into[f.name] ??= {}) as Msg;
      const [k, v] = readMapEntry(c, f as unknown as MapField, depth);
      setOwn(map, k, v);
    } else if (f.repeated) {
      const list = (into[f.name] ??= []) as unknown[];
      const elementWire = scalarWire[f.type] ?? (messageTypeOf(f) ? LEN : VARINT);
      if (wire === LEN && elementWire !== LEN) {
        const n = c.length();
        const packed = new Cursor(buf, c.take(n), c.pos);
        while (packed.pos < packed.end) list.push(readScalar(packed, f.type));
      } else list.push(readValue(c, f, f.type, wire, depth));
    } else {
      const mt = messageTypeOf(f);
      const prev = into[f.name];
      if (mt && wire === LEN && typeof prev === 'object' && prev !== null) {
        // A message field seen twice is merged, as protobuf specifies.
        const n = c.length();
        const at = c.take(n);
        decodeRange(mt, buf, at, at + n, depth + 1, prev as Msg);
      } else into[f.name] = readValue(c, f, f.type, wire, depth);
    }
  }
  return into;
}

/** Decodes `buf` as one message of `type`; nested messages count from `depth` toward the limit. */
export function decodeMessage(type: Type, buf: Buffer, depth = 0): Msg {
  return decodeRange(type, buf, 0, buf.length, depth);
}

/**
 * Encoding between the client's types and etcd's JSON gateway: keys and values are base64 `bytes`
 * fields, 64-bit integers are decimal strings, and fields at their zero value are left out
 * (proto3 JSON mapping, https://protobuf.dev/programming-guides/json/).
 */

/** A key or value as callers pass it: text (sent as UTF-8) or raw bytes. */
export type EtcdBytes = string | Uint8Array;

/** A key-value pair as etcd stores it, key and value decoded as UTF-8. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the key's creation (since its last deletion). */
  readonly createRevision: number;
  /** Revision of the key's last modification. */
  readonly modRevision: number;
  /** Number of modifications since creation; a deletion resets it to 0. */
  readonly version: number;
  /** The lease attached to the key, `'0'` when none. */
  readonly lease: string;
}

/** Thrown for an answer that is not what the gateway documents; the caller wraps it with the endpoint. */
export class MalformedAnswer extends Error {}

const UTF8 = new TextDecoder('utf-8');

function bytesOf(value: EtcdBytes): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * Base64 of a key or value, as the gateway's `bytes` fields take it.
 * @example
 * toBase64('foo'); // 'Zm9v'
 */
export function toBase64(value: EtcdBytes): string {
  return bytesOf(value).toString('base64');
}

/**
 * The `[key, range_end]` pair (base64) covering every key starting with `prefix`: the end is the
 * prefix with its last byte below 0xff incremented and the rest cut; an empty or all-0xff prefix
 * means every key from there on (`range_end` `"\0"`), as etcd's clientv3 `GetPrefixRangeEnd` does.
 * @example
 * prefixRange('a/'); // ['YS8=', 'YTA=']  ('a/' .. 'a0')
 */
export function prefixRange(prefix: EtcdBytes): [key: string, rangeEnd: string] {
  const start = bytesOf(prefix);
  const end = Buffer.from(start);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return [start.toString('base64'), end.subarray(0, i + 1).toString('base64')];
    }
  }
  return [start.length === 0 ? 'AA==' : start.toString('base64'), 'AA=='];
}

/**
 * A 64-bit integer field (decimal string, or absent for 0) as a safe JavaScript number.
 * @example
 * int64('42', 'revision'); // 42
 */
export function int64(value: unknown, field: string): number {
  if (value === undefined) return 0;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
  if (!Number.isSafeInteger(n)) throw new MalformedAnswer(`${field} is not a safe integer: ${JSON.stringify(value)}`);
  return n;
}

/**
 * A 64-bit id (lease id) kept as its decimal string: ids are random and exceed 2^53.
 * @example
 * id64('7587861231285799685', 'ID'); // '7587861231285799685'
 */
export function id64(value: unknown, field: string): string {
  if (value === undefined) return '0';
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw new MalformedAnswer(`${field} is not an int64: ${JSON.stringify(value)}`);
  return value;
}

function text(value: unknown, field: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new MalformedAnswer(`${field} is not base64`);
  return UTF8.decode(Buffer.from(value, 'base64'));
}

/**
 * The object at `value`, or a {@link MalformedAnswer}.
 * @example
 * object(JSON.parse('{"kvs":[]}'), 'range answer').kvs;
 */
export function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedAnswer(`${what} is not an object`);
  return value as Record<string, unknown>;
}

/**
 * The array at `value` (absent means empty), or a {@link MalformedAnswer}.
 * @example
 * array(undefined, 'kvs'); // []
 */
export function array(value: unknown, what: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new MalformedAnswer(`${what} is not an array`);
  return value;
}

/**
 * A gateway `mvccpb.KeyValue` decoded.
 * @example
 * keyValue({ key: 'Zm9v', value: 'YmFy', mod_revision: '2' }).value; // 'bar'
 */
export function keyValue(raw: unknown): KeyValue {
  const kv = object(raw, 'kv');
  return {
    key: text(kv.key, 'key'),
    value: text(kv.value, 'value'),
    createRevision: int64(kv.create_revision, 'create_revision'),
    modRevision: int64(kv.mod_revision, 'mod_revision'),
    version: int64(kv.version, 'version'),
    lease: id64(kv.lease, 'lease'),
  };
}

/**
 * The revision in an answer's `header`.
 * @example
 * headerRevision({ header: { revision: '7' } }); // 7
 */
export function headerRevision(answer: Record<string, unknown>): number {
  return int64(object(answer.header ?? {}, 'header').revision, 'header.revision');
}

/**
 * A small typed client of etcd v3's JSON gateway (https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/)
 * over undici: key ranges, puts, deletes, transactions, leases, watches and the status call.
 * Keys and values are strings (sent as UTF-8) or bytes, base64-encoded here; results decode them
 * as UTF-8. Revisions and versions are numbers (checked to be safe integers); lease ids, random
 * 64-bit values, stay decimal strings.
 *
 * Every call fails over between the endpoints (see {@link EtcdTransport}), is bounded by a per-attempt
 * timeout and a per-call deadline, takes an AbortSignal and reads at most `maxResponseBytes`;
 * every failure is an {@link EtcdError}.
 */
import { array, headerRevision, id64, int64, keyValue, MalformedAnswer, object, prefixRange, toBase64 } from './codec.js';
import type { EtcdBytes, KeyValue } from './codec.js';
import { EtcdError, gatewayError } from './errors.js';
import { EtcdTransport } from './transport.js';
import { lines, watchLine, type WatchEvent } from './watch-stream.js';

export { EtcdError, type EtcdErrorCode, type EtcdErrorDetails } from './errors.js';
export type { EtcdBytes, KeyValue } from './codec.js';
export type { WatchEvent } from './watch-stream.js';

/** Options of {@link EtcdClient}. */
export interface EtcdClientOptions {
  /** Client URLs of the members, e.g. `['http://10.0.0.1:2379', 'http://10.0.0.2:2379']`; at least one. */
  readonly endpoints: readonly string[];
  /** Longest single attempt (connect, headers and body) before the next endpoint is tried; default 2000 ms. */
  readonly requestTimeoutMs?: number;
  /** Longest whole call, all attempts and pauses included; default 10 000 ms. Per call: {@link CallOptions.deadlineMs}. */
  readonly deadlineMs?: number;
  /** TCP connect timeout; default 1000 ms. */
  readonly connectTimeoutMs?: number;
  /** Largest answer read (and largest single watch message); default 8 MiB. */
  readonly maxResponseBytes?: number;
  /**
   * Told of every HTTP round trip of a call (each attempt; watch streams excluded): the gateway
   * path (`/v3/kv/txn`), its seconds, and the {@link EtcdError} code when it failed. Default: none.
   */
  readonly onRoundTrip?: (path: string, seconds: number, error: string | undefined) => void;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the call (an {@link EtcdError} `ABORTED_BY_CALLER`). */
  readonly signal?: AbortSignal;
  /** This call's deadline instead of the client's `deadlineMs`. */
  readonly deadlineMs?: number;
}

/** Options of {@link EtcdClient.range}. */
export interface RangeOptions extends CallOptions {
  /** Every key starting with `key`. */
  readonly prefix?: boolean;
  /** At most this many keys (0: no limit). */
  readonly limit?: number;
  /** Read as of this revision (0: latest); a compacted revision fails with `OUT_OF_RANGE`. */
  readonly revision?: number;
  /** Every key from `key` (inclusive) up to `end` (exclusive), for paging a prefix; `prefix` is then ignored. */
  readonly end?: EtcdBytes;
}

/** Answer of a range read. */
export interface RangeResult {
  readonly kvs: KeyValue[];
  /** More keys matched than `limit` returned. */
  readonly more: boolean;
  /** Number of keys matched. */
  readonly count: number;
  /** The store's revision when read. */
  readonly revision: number;
}

/** Options of {@link EtcdClient.put}. */
export interface PutOptions extends CallOptions {
  /** Attach the key to this lease: it is deleted when the lease expires or is revoked. */
  readonly lease?: string;
  /** Return the previous pair. */
  readonly prevKv?: boolean;
}

/** Answer of a put. */
export interface PutResult {
  readonly revision: number;
  /** The previous pair, when asked for and present. */
  readonly prevKv: KeyValue | undefined;
}

/** Options of {@link EtcdClient.delete}. */
export interface DeleteOptions extends CallOptions {
  /** Every key starting with `key`. */
  readonly prefix?: boolean;
  /** Return the deleted pairs. */
  readonly prevKv?: boolean;
}

/** Answer of a delete. */
export interface DeleteResult {
  readonly revision: number;
  readonly deleted: number;
  readonly prevKvs: KeyValue[];
}

/** How a {@link Compare} compares the key's field with its operand. */
export type CompareResult = 'EQUAL' | 'GREATER' | 'LESS' | 'NOT_EQUAL';

/**
 * One condition of a transaction. A missing key has version, create_revision and mod_revision 0,
 * so `{ target: 'version', result: 'EQUAL', value: 0 }` means "does not exist".
 */
export type Compare =
  | { readonly key: EtcdBytes; readonly target: 'value'; readonly result: CompareResult; readonly value: EtcdBytes }
  | {
      readonly key: EtcdBytes;
      readonly target: 'version' | 'create_revision' | 'mod_revision';
      readonly result: CompareResult;
      readonly value: number;
    };

/** One operation of a transaction branch. */
export type TxnOp =
  | { readonly op: 'range'; readonly key: EtcdBytes; readonly prefix?: boolean; readonly limit?: number }
  | { readonly op: 'put'; readonly key: EtcdBytes; readonly value: EtcdBytes; readonly lease?: string }
  | { readonly op: 'delete'; readonly key: EtcdBytes; readonly prefix?: boolean };

/** The answer of one {@link TxnOp}, in branch order. */
export type TxnOpResult =
  ({ readonly op: 'range' } & RangeResult) | ({ readonly op: 'put' } & PutResult) | ({ readonly op: 'delete' } & DeleteResult);

/** A transaction: if every `compare` holds, `success` runs, else `failure`, atomically. */
export interface TxnRequest {
  readonly compare: readonly Compare[];
  readonly success?: readonly TxnOp[];
  readonly failure?: readonly TxnOp[];
}

/** Answer of a transaction. */
export interface TxnResult {
  /** Whether every comparison held (so `success` ran). */
  readonly succeeded: boolean;
  readonly revision: number;
  readonly responses: TxnOpResult[];
}

/** A granted lease. */
export interface Lease {
  /** Decimal int64 id. */
  readonly id: string;
  /** Time to live in seconds, as granted. */
  readonly ttl: number;
}

/** Answer of {@link EtcdClient.status}, from whichever member answered. */
export interface EtcdStatus {
  readonly revision: number;
  /** Server version, e.g. `3.4.23`. */
  readonly version: string;
  /** Id of the member that answered. */
  readonly memberId: string;
  /** Id of the leader as that member knows it (`'0'`: none). */
  readonly leader: string;
  readonly raftTerm: number;
}

/** Options of {@link EtcdClient.watch}. */
export interface WatchOptions {
  /** First revision to report (inclusive); default: changes after the watch is created. */
  readonly startRevision?: number;
  /** Ends the watch: the iteration then finishes without error. */
  readonly signal?: AbortSignal;
}

const COMPARE_TARGETS = { value: 'VALUE', version: 'VERSION', create_revision: 'CREATE', mod_revision: 'MOD' } as const;

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`EtcdClient option ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function count(name: string, value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return String(value);
}

function endpointUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TypeError(`EtcdClient option endpoints: ${JSON.stringify(endpoint)} is not a URL; pass e.g. http://127.0.0.1:2379`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new TypeError(`EtcdClient option endpoints: ${endpoint} must be an http(s) origin without path, e.g. http://127.0.0.1:2379`);
  }
  return url.origin;
}

/** The gateway's key/range_end pair for a key, or a prefix. */
function keyRange(key: EtcdBytes, prefix: boolean | undefined): { key: string; range_end?: string } {
  if (!prefix) return { key: toBase64(key) };
  const [start, end] = prefixRange(key);
  return { key: start, range_end: end };
}

function rangeRequest(key: EtcdBytes, options: { prefix?: boolean; limit?: number; revision?: number; end?: EtcdBytes }): object {
  const range = options.end === undefined ? keyRange(key, options.prefix) : { key: toBase64(key), range_end: toBase64(options.end) };
  return { ...range, limit: count('limit', options.limit), revision: count('revision', options.revision) };
}

function rangeResult(answer: Record<string, unknown>): RangeResult {
  return {
    kvs: array(answer.kvs, 'kvs').map(keyValue),
    more: answer.more === true,
    count: int64(answer.count, 'count'),
    revision: headerRevision(answer),
  };
}

function putResult(answer: Record<string, unknown>): PutResult {
  return { revision: headerRevision(answer), prevKv: answer.prev_kv === undefined ? undefined : keyValue(answer.prev_kv) };
}

function deleteResult(answer: Record<string, unknown>): DeleteResult {
  return {
    revision: headerRevision(answer),
    deleted: int64(answer.deleted, 'deleted'),
    prevKvs: array(answer.prev_kvs, 'prev_kvs').map(keyValue),
  };
}

function compareRequest(compare: Compare): object {
  const target = COMPARE_TARGETS[compare.target];
  if (target === undefined) throw new TypeError(`unknown compare target ${String(compare.target)}`);
  const operand = compare.target === 'value' ? toBase64(compare.value) : count(compare.target, compare.value);
  return { key: toBase64(compare.key), target, result: compare.result, [compare.target]: operand };
}

function opRequest(op: TxnOp): object {
  switch (op.op) {
    case 'range':
      return { request_range: rangeRequest(op.key, op) };
    case 'put':
      return { request_put: { key: toBase64(op.key), value: toBase64(op.value), lease: op.lease } };
    case 'delete':
      return { request_delete_range: keyRange(op.key, op.prefix) };
    default:
      throw new TypeError(`unknown txn op ${String((op as { op: unknown }).op)}`);
  }
}

function opResult(raw: unknown): TxnOpResult {
  const response = object(raw, 'txn response');
  if (response.response_range !== undefined) return { op: 'range', ...rangeResult(object(response.response_range, 'response_range')) };
  if (response.response_put !== undefined) return { op: 'put', ...putResult(object(response.response_put, 'response_put')) };
  if (response.response_delete_range !== undefined) {
    return { op: 'delete', ...deleteResult(object(response.response_delete_range, 'response_delete_range')) };
  }
  throw new MalformedAnswer('txn response of an unknown kind');
}

/** The `result` of a one-message stream answer (lease keep-alive), or its error. */
function streamResult(answer: Record<string, unknown>, endpoint: string): Record<string, unknown> {
  if (answer.error !== undefined) {
    const { grpc_code: code, http_code: status, message } = object(answer.error, 'error');
    throw gatewayError(endpoint, typeof status === 'number' ? status : 500, JSON.stringify({ code, message }));
  }
  return object(answer.result, 'result');
}

/**
 * Typed etcd v3 client over the JSON gateway, with failover between members.
 * @example
 * const etcd = new EtcdClient({ endpoints: ['http://127.0.0.1:2379'] });
 * const { revision } = await etcd.put('users/1', '{"name":"Ada"}');
 * const { kvs } = await etcd.range('users/', { prefix: true });
 * const swapped = await etcd.txn({
 *   compare: [{ key: 'users/1', target: 'mod_revision', result: 'EQUAL', value: revision }],
 *   success: [{ op: 'put', key: 'users/1', value: '{"name":"Grace"}' }],
 * });
 * await etcd.close();
 */
export class EtcdClient {
  readonly #transport: EtcdTransport;
  readonly #maxResponseBytes: number;
  readonly #deadlineMs: number;
  readonly #watches = new Set<AbortController>();

  constructor(options: EtcdClientOptions) {
    if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
      throw new TypeError('EtcdClient option endpoints must list at least one member URL, e.g. http://127.0.0.1:2379');
    }
    const endpoints = options.endpoints.map(endpointUrl);
    this.#maxResponseBytes = positive('maxResponseBytes', options.maxResponseBytes ?? 8 * 1024 * 1024);
    this.#deadlineMs = positive('deadlineMs', options.deadlineMs ?? 10_000);
    this.#transport = new EtcdTransport(endpoints, {
      requestTimeoutMs: positive('requestTimeoutMs', options.requestTimeoutMs ?? 2000),
      connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs ?? 1000),
      maxResponseBytes: this.#maxResponseBytes,
      onRoundTrip: options.onRoundTrip,
    });
  }

  /**
   * Reads a key, or every key with a prefix.
   * @example
   * const { kvs, count } = await etcd.range('users/', { prefix: true, limit: 100 });
   */
  range(key: EtcdBytes, options: RangeOptions = {}): Promise<RangeResult> {
    return this.#call('/v3/kv/range', rangeRequest(key, options), rangeResult, options);
  }

  /**
   * Writes a key.
   * @example
   * const { revision } = await etcd.put('users/1', '{"name":"Ada"}', { lease: lease.id });
   */
  put(key: EtcdBytes, value: EtcdBytes, options: PutOptions = {}): Promise<PutResult> {
    const body = { key: toBase64(key), value: toBase64(value), lease: options.lease, prev_kv: options.prevKv };
    return this.#call('/v3/kv/put', body, putResult, options);
  }

  /**
   * Deletes a key, or every key with a prefix.
   * @example
   * const { deleted } = await etcd.delete('sessions/', { prefix: true });
   */
  delete(key: EtcdBytes, options: DeleteOptions = {}): Promise<DeleteResult> {
    const body = { ...keyRange(key, options.prefix), prev_kv: options.prevKv };
    return this.#call('/v3/kv/deleterange', body, deleteResult, options);
  }

  /**
   * Runs a transaction: compare-and-swap, create-if-absent, multi-key atomic writes.
   * @example
   * const created = await etcd.txn({
   *   compare: [{ key: 'users/1', target: 'version', result: 'EQUAL', value: 0 }],
   *   success: [{ op: 'put', key: 'users/1', value: '{}' }],
   *   failure: [{ op: 'range', key: 'users/1' }],
   * });
   */
  txn(request: TxnRequest, options: CallOptions = {}): Promise<TxnResult> {
    const body = {
      compare: request.compare.map(compareRequest),
      success: (request.success ?? []).map(opRequest),
      failure: (request.failure ?? []).map(opRequest),
    };
    return this.#call(
      '/v3/kv/txn',
      body,
      (answer) => ({
        succeeded: answer.succeeded === true,
        revision: headerRevision(answer),
        responses: array(answer.responses, 'responses').map(opResult),
      }),
      options,
    );
  }

  /**
   * Grants a lease of `ttlSeconds`.
   * @example
   * const lease = await etcd.grantLease(10);
   */
  grantLease(ttlSeconds: number, options: CallOptions = {}): Promise<Lease> {
    return this.#call(
      '/v3/lease/grant',
      { TTL: count('ttlSeconds', ttlSeconds) },
      (answer) => ({ id: id64(answer.ID, 'ID'), ttl: int64(answer.TTL, 'TTL') }),
      options,
    );
  }

  /**
   * Renews a lease once and returns its new TTL in seconds; an expired or unknown lease fails
   * with `NOT_FOUND`.
   * @example
   * const ttl = await etcd.keepAlive(lease.id);
   */
  keepAlive(id: string, options: CallOptions = {}): Promise<number> {
    return this.#call(
      '/v3/lease/keepalive',
      { ID: id },
      (answer, endpoint) => {
        const ttl = int64(streamResult(answer, endpoint).TTL, 'TTL');
        if (ttl <= 0) throw gatewayError(endpoint, 404, JSON.stringify({ code: 5, message: `lease ${id} not found` }));
        return ttl;
      },
      options,
    );
  }

  /**
   * Revokes a lease, deleting every key attached to it.
   * @example
   * await etcd.revokeLease(lease.id);
   */
  async revokeLease(id: string, options: CallOptions = {}): Promise<void> {
    await this.#call('/v3/lease/revoke', { ID: id }, headerRevision, options);
  }

  /**
   * Status of whichever member answers: current revision, version, leader.
   * @example
   * const { revision } = await etcd.status();
   */
  status(options: CallOptions = {}): Promise<EtcdStatus> {
    return this.#call(
      '/v3/maintenance/status',
      {},
      (answer) => ({
        revision: headerRevision(answer),
        version: typeof answer.version === 'string' ? answer.version : '',
        memberId: id64(object(answer.header ?? {}, 'header').member_id, 'member_id'),
        leader: id64(answer.leader, 'leader'),
        raftTerm: int64(answer.raftTerm, 'raftTerm'),
      }),
      options,
    );
  }

  /**
   * Changes to every key starting with `prefix`, in revision order, from `startRevision` on.
   * Connecting fails over like any call; once open, the stream is not resumed: when it breaks
   * the iteration throws (`CONNECTION`, retriable: watch again from the last revision seen + 1).
   * A compacted start revision throws `COMPACTED` (with `compactRevision`). Aborting `signal`,
   * breaking out of the loop or {@link close} ends it.
   * @example
   * for await (const event of etcd.watch('users/', { startRevision: revision + 1, signal })) {
   *   console.log(event.type, event.key, event.modRevision);
   * }
   */
  async *watch(prefix: EtcdBytes, options: WatchOptions = {}): AsyncGenerator<WatchEvent, void, undefined> {
    for await (const events of this.watchResponses(prefix, options)) yield* events;
  }

  /**
   * {@link watch}, one array per watch response: etcd never splits the events of one revision
   * (one transaction) across responses, so applying each array in one step never shows a
   * transaction half done. Responses without events (creation, progress) are skipped.
   * @example
   * for await (const events of etcd.watchResponses('users/', { startRevision, signal })) apply(events);
   */
  async *watchResponses(prefix: EtcdBytes, options: WatchOptions = {}): AsyncGenerator<WatchEvent[], void, undefined> {
    const controller = new AbortController();
    const stop = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) return;
    options.signal?.addEventListener('abort', stop, { once: true });
    this.#watches.add(controller);
    const [key, rangeEnd] = prefixRange(prefix);
    const create = { key, range_end: rangeEnd, start_revision: count('startRevision', options.startRevision) };
    try {
      const { endpoint, body } = await this.#transport.open('/v3/watch', { create_request: create }, controller.signal, this.#deadlineMs);
      try {
        for await (const line of lines(body, this.#maxResponseBytes, endpoint)) {
          const events = watchLine(line, endpoint);
          if (events.length > 0) yield events;
        }
        throw new EtcdError('CONNECTION', 'watch stream ended', { endpoint, retriable: true });
      } finally {
        body.destroy();
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      controller.abort();
      options.signal?.removeEventListener('abort', stop);
      this.#watches.delete(controller);
    }
  }

  /**
   * Ends open watches and closes pooled sockets; call on shutdown.
   * @example
   * await etcd.close();
   */
  async close(): Promise<void> {
    for (const watch of this.#watches) watch.abort();
    await this.#transport.close();
  }

  #call<T>(path: string, body: object, decode: (answer: Record<string, unknown>, endpoint: string) => T, options: CallOptions): Promise<T> {
    const deadlineMs = options.deadlineMs === undefined ? this.#deadlineMs : positive('deadlineMs', options.deadlineMs);
    return this.#transport.call(path, body, decode, options.signal, deadlineMs);
  }
}

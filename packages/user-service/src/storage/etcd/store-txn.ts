/**
 * How {@link EtcdRecordStore} turns a commit into ONE etcd transaction: the preconditions become
 * compares, the batch becomes puts and deletes (one per key: etcd refuses a transaction that
 * writes a key twice, so only the last mutation of each key is kept, which leaves the same end
 * state), the write marker put comes last, and the failure branch reads the precondition keys
 * so that a refused commit can name the precondition that failed.
 *
 * @module
 */
import type { Compare, TxnOp, TxnResult } from './client.js';
import type { EtcdKeys } from './store-keys.js';
import { isRecordId, type EncodedBatch } from '../record-codec.js';
import { failedPrecondition, RecordStoreError, type Precondition, type RecordLease } from '../record-store.js';

/** A put or delete of the transaction, its lease not yet resolved to a lease id. */
export type PlannedOp =
  | { readonly op: 'put'; readonly key: string; readonly value: string; readonly lease: RecordLease | undefined }
  | { readonly op: 'delete'; readonly key: string };

/** A validated commit, ready to become a transaction. */
export interface CommitPlan {
  readonly ops: readonly PlannedOp[];
  readonly expect: readonly Precondition[];
  readonly compare: readonly Compare[];
  /** Reads of the precondition keys, run when a compare fails. */
  readonly failure: readonly TxnOp[];
}

/** Largest TTL etcd grants (9 000 000 000 s) minus the reuse margin added to it. */
const MAX_TTL_SECONDS = 8_999_999_000;

function invalid(message: string): RecordStoreError {
  return new RecordStoreError('ERR_STORE_INVALID_MUTATION', message);
}

/** Keys are UTF-8: a lone surrogate would come back as U+FFFD, another collection. */
function checkCollection(collection: string, where: string): void {
  if (/\p{Cs}/u.test(collection)) throw invalid(`${where}: collection must be well-formed Unicode (no lone surrogates)`);
}

function checkLease(lease: unknown, i: number): RecordLease | undefined {
  if (lease === undefined || lease === 'instance') return lease;
  const ttl = (lease as { ttlSeconds?: unknown } | null)?.ttlSeconds;
  if (typeof lease === 'object' && Number.isSafeInteger(ttl) && (ttl as number) > 0 && (ttl as number) <= MAX_TTL_SECONDS) {
    return { ttlSeconds: ttl as number };
  }
  throw invalid(`mutation ${i}: lease must be 'instance' or { ttlSeconds: a positive integer up to ${MAX_TTL_SECONDS} }`);
}

function checkExpect(expect: unknown): readonly Precondition[] {
  if (expect === undefined) return [];
  if (!Array.isArray(expect)) throw invalid('options.expect must be an array of preconditions');
  return expect.map((p: unknown, i): Precondition => {
    const where = `precondition ${i}`;
    const { collection, id, version, exists } = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    if (typeof collection !== 'string' || collection.length === 0) throw invalid(`${where}: collection must be a non-empty string`);
    checkCollection(collection, where);
    if (!isRecordId(id)) throw invalid(`${where}: id must be a positive safe integer`);
    if (exists === true) return { collection, id, exists: true };
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
      throw invalid(`${where}: give version (a non-negative integer) or exists: true`);
    }
    return { collection, id, version };
  });
}

/**
 * Validates what {@link encodeBatch} does not look at (leases, preconditions, collection
 * encoding) and plans the transaction. `input` is the caller's array that gave `batch`.
 * @example
 * const plan = planCommit(keys, mutations, encodeBatch(mutations), options?.expect);
 */
export function planCommit(keys: EtcdKeys, input: readonly unknown[], batch: EncodedBatch, expect: unknown): CommitPlan {
  const byKey = new Map<string, PlannedOp>();
  batch.mutations.forEach((m, i) => {
    checkCollection(m.collection, `mutation ${i}`);
    const lease = checkLease((input[i] as { lease?: unknown }).lease, i);
    if (m.op === 'delete') byKey.set(keys.record(m.collection, m.id), { op: 'delete', key: keys.record(m.collection, m.id) });
    else {
      const key = keys.record(m.collection, m.record.id);
      byKey.set(key, { op: 'put', key, value: JSON.stringify(m.record), lease });
    }
  });
  const preconditions = checkExpect(expect);
  const compare = preconditions.map((p): Compare => {
    const key = keys.record(p.collection, p.id);
    if ('exists' in p) return { key, target: 'version', result: 'GREATER', value: 0 };
    return p.version === 0
      ? { key, target: 'version', result: 'EQUAL', value: 0 }
      : { key, target: 'mod_revision', result: 'EQUAL', value: p.version };
  });
  const reads = new Set(preconditions.map((p) => keys.record(p.collection, p.id)));
  return {
    ops: Array.from(byKey.values()),
    expect: preconditions,
    compare,
    failure: Array.from(reads, (key): TxnOp => ({ op: 'range', key })),
  };
}

/**
 * The first precondition that the failure branch's reads show not holding (they ran at the
 * revision the compares were evaluated at).
 * @example
 * const failed = failedOf(keys, plan, result);
 */
export function failedOf(keys: EtcdKeys, plan: CommitPlan, result: TxnResult): Precondition | undefined {
  const versions = new Map<string, number>();
  for (const response of result.responses) if (response.op === 'range') for (const kv of response.kvs) versions.set(kv.key, kv.modRevision);
  return failedPrecondition(plan.expect, (collection, id) => versions.get(keys.record(collection, id)) ?? 0);
}

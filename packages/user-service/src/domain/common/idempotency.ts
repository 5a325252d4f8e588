/**
 * `Idempotency-Key` on POST (users, orders, async jobs), after
 * https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/ : a client that
 * retries a POST with the same key gets the first answer again instead of a second write.
 *
 * - The first answer (status, `Location`, body) is committed in the SAME atomic batch as the write
 *   it answers, under a precondition that no answer is stored for the key yet. So either both
 *   land or neither does, and of two requests racing with one key (on one instance or on two
 *   sharing a store) exactly one writes; the other replays its answer.
 * - A retry with the same key and the same request (method, path, body) is answered from the
 *   stored answer, with `Idempotent-Replayed: true`, on any instance. The same key with a
 *   different request is 422 (`IDEMPOTENCY_KEY_REUSED`): the key names one operation.
 * - Keys are 1-255 visible ASCII characters (else 400). An answer is kept
 *   {@link IDEMPOTENCY_TTL_SECONDS} (24 hours): on etcd as a lease, on the local stores with an
 *   expiry that lookups honour and {@link IdempotencyService.sweep} removes.
 * - Only answers of successful writes are stored: a 4xx validation error writes nothing, so a
 *   retry after fixing nothing gets the same 4xx again; a 503 whose write may have been applied
 *   (the store unreachable past its deadline) is safe to retry with the key.
 */
import { createHash } from 'node:crypto';
import { BadRequestError, UnprocessableEntityError } from '@jaxrs-node/pipeline';
import { RecordStoreError, type Mutation, type Precondition, type RecordStore, type StoredRecord } from '../../storage/record-store.js';

/** Record-store collection of stored answers, keyed by a hash of the key. */
export const IDEMPOTENCY_COLLECTION = 'idempotency';
/** How long an answer is kept: 24 hours. */
export const IDEMPOTENCY_TTL_SECONDS = 86_400;
/** Response header marking a replayed answer. */
export const REPLAYED_HEADER = 'idempotent-replayed';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The first answer to a keyed POST. */
export interface StoredAnswer {
  readonly status: number;
  /** Absolute `Location` of the created resource, if the answer had one. */
  readonly location?: string;
  readonly body: unknown;
}

interface AnswerRecord extends StoredRecord {
  key: string;
  fingerprint: string;
  answer: StoredAnswer;
  /** ISO 8601; after it the key is free again. */
  expiresAt: string;
}

/** What a keyed write adds to its batch: the answer to store and the precondition guarding it. */
export interface IdempotentCommit<R> {
  alsoCommit: (result: R) => Mutation[];
  expect: readonly Precondition[];
}

/** A key claimed for one write: turns the write's result into the stored answer. */
export interface IdempotencyClaim {
  /** The extras of the write's batch; `answerOf` builds the answer from what the write created. */
  commitWith<R>(answerOf: (result: R) => StoredAnswer): IdempotentCommit<R>;
}

/** The outcome of {@link IdempotencyService.execute}: a fresh result, or the stored answer. */
export type Idempotent<T> = { readonly replayed: false; readonly result: T } | { readonly replayed: true; readonly answer: StoredAnswer };

export interface IdempotencyOptions {
  ttlSeconds?: number;
  /** Clock of the expiries (tests pin it). */
  now?: () => number;
}

/**
 * Stored answers of keyed POSTs over a record store.
 *
 * @example
 * ```ts
 * const outcome = await idempotency.execute(key, () => `POST /api/users ${JSON.stringify(body)}`, (claim) =>
 *   users.create(body, claim?.commitWith((user) => ({ status: 201, location: `${base}/${user.id}`, body: user }))),
 * );
 * ```
 */
export class IdempotencyService {
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(
    private readonly store: RecordStore,
    options: IdempotencyOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.ttlSeconds) || this.ttlSeconds < 1) {
      throw new RangeError('IdempotencyService: ttlSeconds must be a positive integer');
    }
  }

  /**
   * Runs `write` once per key: without a key it just runs; with a key already answered it replays
   * (or 422 for a different request); else it runs `write` with a claim whose extras the write
   * must commit in its own batch. A concurrent request with the same key that commits first makes
   * this one replay its answer.
   *
   * @param key the `Idempotency-Key` header value, `undefined` when absent.
   * @param fingerprint what identifies the request: method, path and a canonical body; or a
   *   function making it, called only when there is a key (most writes have none, and the canonical
   *   body is a `JSON.stringify` of the whole body).
   * @throws BadRequestError for a malformed key; UnprocessableEntityError for a reused key.
   */
  async execute<T>(
    key: string | undefined,
    fingerprint: string | (() => string),
    write: (claim: IdempotencyClaim | undefined) => Promise<T>,
  ): Promise<Idempotent<T>> {
    if (key === undefined) return { replayed: false, result: await write(undefined) };
    if (!KEY.test(key)) {
      throw new BadRequestError('Idempotency-Key must be 1-255 visible ASCII characters', {
        code: 'IDEMPOTENCY_KEY_INVALID',
        details: [{ field: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' }],
      });
    }
    const digest = hashOf(typeof fingerprint === 'string' ? fingerprint : fingerprint());
    const stored = this.answerFor(key, digest);
    if (stored !== undefined) return stored;
    const id = slotOf(key);
    const occupant = this.store.get<AnswerRecord>(IDEMPOTENCY_COLLECTION, id);
    // Another live key hashed to the same slot (about 1 in 2^48): the write runs unguarded.
    if (occupant !== undefined && occupant.key !== key && !this.expired(occupant))
      return { replayed: false, result: await write(undefined) };
    const claim = this.claim(id, key, digest);
    try {
      return { replayed: false, result: await write(claim) };
    } catch (error) {
      if (
        !(error instanceof RecordStoreError) ||
        error.code !== 'ERR_STORE_CONFLICT' ||
        error.failed?.collection !== IDEMPOTENCY_COLLECTION
      ) {
        throw error;
      }
      // A request with the same key committed first: its answer is ours.
      await this.store.sync();
      const winner = this.answerFor(key, digest);
      if (winner === undefined) throw error;
      return winner;
    }
  }

  /** Deletes expired answers (local stores; etcd's leases drop them by themselves). */
  async sweep(): Promise<number> {
    const expired: Mutation[] = [];
    for (const record of this.store.values<AnswerRecord>(IDEMPOTENCY_COLLECTION)) {
      if (this.expired(record)) expired.push({ op: 'delete', collection: IDEMPOTENCY_COLLECTION, id: record.id });
      if (expired.length >= 1000) break;
    }
    if (expired.length > 0) await this.store.commit(expired);
    return expired.length;
  }

  private answerFor(key: string, digest: string): Idempotent<never> | undefined {
    const record = this.store.get<AnswerRecord>(IDEMPOTENCY_COLLECTION, slotOf(key));
    if (record === undefined || record.key !== key || this.expired(record)) return undefined;
    if (record.fingerprint !== digest) {
      throw new UnprocessableEntityError('This Idempotency-Key was used for a different request', {
        code: 'IDEMPOTENCY_KEY_REUSED',
        details: [{ field: 'Idempotency-Key', message: 'already used with another method, path or body; use a new key' }],
      });
    }
    return { replayed: true, answer: record.answer };
  }

  private claim(id: number, key: string, fingerprint: string): IdempotencyClaim {
    // The version seen now: 0 when the slot is free, else that of the expired answer replaced.
    const expect: Precondition = { collection: IDEMPOTENCY_COLLECTION, id, version: this.store.version(IDEMPOTENCY_COLLECTION, id) };
    const previous = this.store.get<AnswerRecord>(IDEMPOTENCY_COLLECTION, id);
    return {
      commitWith: <R>(answerOf: (result: R) => StoredAnswer): IdempotentCommit<R> => ({
        expect: [expect],
        alsoCommit: (result: R) => {
          const record: AnswerRecord = {
            id,
            key,
            fingerprint,
            answer: answerOf(result),
            expiresAt: new Date(this.now() + this.ttlSeconds * 1000).toISOString(),
            rev: (typeof previous?.rev === 'number' ? previous.rev : 1) + 1,
          };
          return [{ op: 'put', collection: IDEMPOTENCY_COLLECTION, record, lease: { ttlSeconds: this.ttlSeconds } }];
        },
      }),
    };
  }

  private expired(record: AnswerRecord): boolean {
    return Date.parse(record.expiresAt) <= this.now();
  }
}

/** The record id of a key: 48 bits of its SHA-256, plus one (ids are positive). */
function slotOf(key: string): number {
  return createHash('sha256').update(key).digest().readUIntBE(0, 6) + 1;
}

function hashOf(fingerprint: string): string {
  return createHash('sha256').update(fingerprint).digest('base64url');
}

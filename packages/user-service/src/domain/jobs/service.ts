/**
 * Asynchronous user creation (`docs/api.md` rule 22: POST /api/async/users answers 202 with a
 * Location, GET /api/async/users/status reports `status`, `COMPLETED` marking completion).
 *
 * A job is committed durably (record + its items) before `submit` resolves, so a 202 survives a
 * crash. One background worker runs jobs in submission order, item by item, through the same
 * `createUser` as POST /api/users, so validation is identical.
 *
 * States: PENDING -> RUNNING -> COMPLETED (item validation failures are listed in `failed`, they
 * do not fail the job) or FAILED (an unexpected, non-4xx error; the remaining items are skipped).
 *
 * Exactly once, across restarts and instances: each item's user is committed together with a
 * done-record of that item, under the precondition that the done-record is absent and that this
 * instance still owns the job. Whoever runs a job again (after a restart, or another instance
 * after the owner died) skips the items already done, so no item creates two users and none is
 * lost. Ownership is a record leased to the instance (`job-owners`): on a shared store it
 * vanishes when the owner dies, every other instance sees that through the store's change
 * notifications and tries to claim the job (a precondition: one wins), then finishes it. An owner
 * that lost its job (its lease expired while it was cut off) finds out at its next commit and
 * stops without writing.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError, PayloadTooLargeError, WebApplicationError } from '@jaxrs-node/pipeline';
import { RecordStoreError, type Mutation, type Precondition } from '../../storage/record-store.js';
import type { IdempotentCommit } from '../common/idempotency.js';
import { parseRecordId } from '../common/record-id.js';
import {
  itemErrors,
  JOB_DONE_COLLECTION,
  JOB_ITEM_SLOTS,
  JOB_ITEMS_COLLECTION,
  JOB_OWNERS_COLLECTION,
  JOBS_COLLECTION,
  MAX_JOB_ITEMS,
  type Job,
  type JobItems,
  type JobServiceOptions,
} from './model.js';

export {
  JOB_DONE_COLLECTION,
  JOB_ITEM_SLOTS,
  JOB_OWNERS_COLLECTION,
  JOB_ITEMS_COLLECTION,
  JOBS_COLLECTION,
  MAX_JOB_ITEMS,
  NO_JOB_STATUS,
  type Job,
  type JobItemFailure,
  type JobServiceOptions,
  type JobStatus,
  type CreateItemOptions,
} from './model.js';

/**
 * Queue and worker of user-creation jobs.
 *
 * @example
 * ```ts
 * const jobs = new JobService({ store, createUser: (body) => users.create(body) });
 * await jobs.recover();                        // at start-up
 * const job = await jobs.submit(requestBody);  // 202, Location: /api/async/users/status
 * jobs.latest() ?? NO_JOB_STATUS;              // status endpoint
 * await jobs.whenIdle();                       // tests, graceful shutdown
 * ```
 */
export class JobService {
  private readonly options: Required<Omit<JobServiceOptions, 'onError'>> & Pick<JobServiceOptions, 'onError'>;
  private readonly queue: number[] = [];
  private readonly queued = new Set<number>();
  private worker: Promise<void> | undefined;
  /** Live view of the running job, fresher than its last progress commit. */
  private current: Job | undefined;
  private latestId: number | undefined;
  /** Listeners of {@link watch}, by job id. */
  private readonly watchers = new Map<number, Set<(job: Job) => void>>();
  /** This instance, as named in the ownership records. */
  private readonly instance = randomUUID();
  private readonly stopListening: () => void;
  private recovered = false;

  constructor(options: JobServiceOptions) {
    this.options = {
      ...options,
      maxItems: options.maxItems ?? MAX_JOB_ITEMS,
      progressEvery: options.progressEvery ?? 20,
      now: options.now ?? (() => new Date()),
    };
    if (!Number.isSafeInteger(this.options.maxItems) || this.options.maxItems < 0 || this.options.maxItems > JOB_ITEM_SLOTS) {
      throw new RangeError(`JobService: maxItems must be an integer from 0 to ${JOB_ITEM_SLOTS}`);
    }
    if (!Number.isSafeInteger(this.options.progressEvery) || this.options.progressEvery < 1) {
      throw new RangeError('JobService: progressEvery must be a positive integer');
    }
    this.stopListening = this.options.store.onChange((collection, id) => this.storeChanged(collection, id));
  }

  /**
   * Accepts a job: `body` must be an array of user bodies, or `undefined`/`null` (an empty body,
   * which makes a job of 0 items that completes). Resolves with the PENDING job once it is durable
   * (and owned by this instance); processing starts on a later turn of the event loop.
   * `options` adds an Idempotency-Key's answer to the same batch.
   *
   * @throws BadRequestError (400) if `body` is not an array; PayloadTooLargeError (413) for more than
   *   `maxItems` items: the body is well-formed but bigger than we accept (RFC 9110 §15.5.14).
   */
  async submit(body: unknown, options: Partial<IdempotentCommit<Job>> = {}): Promise<Job> {
    const items = body ?? [];
    if (!Array.isArray(items)) {
      throw new BadRequestError('Body must be a JSON array of users', { code: 'JOB_BODY_NOT_ARRAY' });
    }
    if (items.length > this.options.maxItems) {
      throw new PayloadTooLargeError(`At most ${this.options.maxItems} users per job`, { code: 'JOB_TOO_MANY_ITEMS' });
    }
    const id = await this.options.store.allocateId(JOBS_COLLECTION);
    const job: Job = {
      id,
      status: 'PENDING',
      total: items.length,
      processed: 0,
      created: [],
      failed: [],
      submittedAt: this.now(),
    };
    await this.options.store.commit(
      [
        { op: 'put', collection: JOBS_COLLECTION, record: job },
        { op: 'put', collection: JOB_ITEMS_COLLECTION, record: { id, items } },
        this.ownership(id),
        ...(options.alsoCommit?.(job) ?? []),
      ],
      { expect: [{ collection: JOBS_COLLECTION, id, version: 0 }, ...(options.expect ?? [])] },
    );
    this.latestId = Math.max(id, this.latestId ?? 0);
    this.enqueue(id);
    return this.view(id) ?? job;
  }

  /**
   * Calls `listener` with a snapshot of job `id` at each change: when it starts running, after
   * every item (progress is not committed that often: this is the live view), and when it
   * completes or fails. A job another instance runs is reported at each of its commits. Returns
   * the function that stops it. Nothing is replayed: read the current state with {@link get}
   * first (in the same synchronous block, so no change falls in between).
   *
   * @example
   * const stop = jobs.watch(job.id, (j) => send(j));
   */
  watch(id: number, listener: (job: Job) => void): () => void {
    let listeners = this.watchers.get(id);
    if (listeners === undefined) this.watchers.set(id, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.watchers.get(id) === listeners) this.watchers.delete(id);
    };
  }

  /** Tells the watchers of `job` (a copy each time: the live arrays keep growing). */
  private changed(job: Job): void {
    const listeners = this.watchers.get(job.id);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) listener({ ...job, created: [...job.created], failed: [...job.failed] });
  }

  /** Job `rawId` (decimal string or number). @throws NotFoundError */
  get(rawId: string | number): Job {
    const id = parseRecordId(rawId, { canonical: true }); // one URL per job: `007` is not job 7
    const job = id === undefined ? undefined : this.view(id);
    if (job === undefined) throw new NotFoundError('Job not found', { code: 'JOB_NOT_FOUND' });
    return job;
  }

  /** The most recently submitted job, or `undefined` (then report {@link NO_JOB_STATUS}). */
  latest(): Job | undefined {
    if (this.latestId === undefined) {
      for (const job of this.options.store.values<Job>(JOBS_COLLECTION)) this.latestId = job.id;
    }
    return this.latestId === undefined ? undefined : this.view(this.latestId);
  }

  /** Resolves once no job is queued or running. */
  async whenIdle(): Promise<void> {
    while (this.worker !== undefined) await this.worker;
  }

  /** Stops listening to the store (the worker finishes what it runs; see {@link whenIdle}). */
  close(): void {
    this.stopListening();
  }

  /**
   * Start-up recovery; call once after `store.open()`, before `submit`. Every unfinished job
   * (PENDING, or RUNNING when its runner stopped) that no live instance owns is claimed and run
   * again from where it stopped: items already done are skipped (see the module comment). On a
   * local store the previous process is gone by definition, so its ownership records are
   * taken over; on a shared store a job still owned by a live instance is left to it, and taken
   * over when its owner's record vanishes. Leftover done-records of finished jobs are removed.
   */
  async recover(): Promise<{ resumed: number }> {
    this.recovered = true;
    let resumed = 0;
    for (const job of Array.from(this.options.store.values<Job>(JOBS_COLLECTION))) {
      this.latestId = Math.max(job.id, this.latestId ?? 0);
      if (await this.claim(job.id, !this.options.store.shared)) resumed++;
    }
    await this.removeDone((jobId) => !unfinished(this.options.store.get<Job>(JOBS_COLLECTION, jobId)));
    return { resumed };
  }

  /** The store changed (any instance): follow other instances' jobs, take over orphaned ones. */
  private storeChanged(collection: string, id: number): void {
    const { store } = this.options;
    if (collection === JOBS_COLLECTION) {
      if (id > (this.latestId ?? 0) && this.latestId !== undefined) this.latestId = id;
      const job = store.get<Job>(JOBS_COLLECTION, id);
      if (job !== undefined && this.current?.id !== id) this.changed(job);
    } else if (
      collection === JOB_OWNERS_COLLECTION &&
      this.recovered &&
      store.shared &&
      store.get(JOB_OWNERS_COLLECTION, id) === undefined
    ) {
      // Its owner finished it, or died: only an unfinished job is claimed.
      void this.claim(id, false).catch((error: unknown) => this.report(error, store.get<Job>(JOBS_COLLECTION, id)));
    }
  }

  /**
   * Claims job `id` for this instance if it is unfinished and (unless `takeOver`) nobody owns it,
   * then queues it. A precondition on the ownership record decides between instances racing.
   */
  private async claim(id: number, takeOver: boolean): Promise<boolean> {
    const { store } = this.options;
    if (this.queued.has(id) || this.current?.id === id) return false;
    if (!unfinished(store.get<Job>(JOBS_COLLECTION, id))) return false;
    const ownerVersion = store.version(JOB_OWNERS_COLLECTION, id);
    if (ownerVersion !== 0 && !takeOver) return false;
    try {
      await store.commit([this.ownership(id)], {
        expect: [
          { collection: JOB_OWNERS_COLLECTION, id, version: ownerVersion },
          { collection: JOBS_COLLECTION, id, version: store.version(JOBS_COLLECTION, id) },
        ],
      });
    } catch (error) {
      if (error instanceof RecordStoreError && error.code === 'ERR_STORE_CONFLICT') return false; // another instance was faster
      throw error;
    }
    if (!unfinished(store.get<Job>(JOBS_COLLECTION, id))) return false;
    this.enqueue(id);
    return true;
  }

  /** The record that says this instance runs job `id`, leased to the instance. */
  private ownership(id: number): Mutation {
    return { op: 'put', collection: JOB_OWNERS_COLLECTION, record: { id, owner: this.instance }, lease: 'instance' };
  }

  private enqueue(id: number): void {
    this.queue.push(id);
    this.queued.add(id);
    this.kick();
  }

  /** Starts the single worker unless it runs; a job queued while it was stopping restarts it. */
  private kick(): void {
    this.worker ??= this.drain().finally(() => {
      this.worker = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Let `submit` answer 202 before any item runs.
    await new Promise((resolve) => setImmediate(resolve));
    for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
      await this.run(id).catch(() => undefined); // run() reports its own errors
      this.queued.delete(id);
    }
  }

  private async run(id: number): Promise<void> {
    const { store, createUser, progressEvery } = this.options;
    const stored = store.get<Job>(JOBS_COLLECTION, id);
    if (!unfinished(stored)) return;
    const items = store.get<JobItems>(JOB_ITEMS_COLLECTION, id)?.items ?? [];
    // Every commit of this run holds only while this instance still owns the job.
    const owned: Precondition = { collection: JOB_OWNERS_COLLECTION, id, version: store.version(JOB_OWNERS_COLLECTION, id) };
    const job: Job = { ...stored, status: 'RUNNING', startedAt: stored.startedAt ?? this.now(), processed: 0, created: [], failed: [] };
    this.current = job;
    try {
      await this.save(job, owned);
      this.changed(job);
      for (const [index, item] of items.entries()) {
        const doneId = id * JOB_ITEM_SLOTS + index;
        const done = store.get<{ id: number; user: number }>(JOB_DONE_COLLECTION, doneId);
        if (done !== undefined) {
          job.created.push(done.user); // created by an earlier run: not again
        } else {
          try {
            const created = await createUser(item, {
              alsoCommit: (user) => [{ op: 'put', collection: JOB_DONE_COLLECTION, record: { id: doneId, user: user.id } }],
              expect: [owned, { collection: JOB_DONE_COLLECTION, id: doneId, version: 0 }],
            });
            job.created.push(created.id);
          } catch (error) {
            if (!(error instanceof WebApplicationError) || error.status >= 500) throw error;
            job.failed.push({ index, errors: itemErrors(error) });
          }
        }
        job.processed = index + 1;
        if (job.processed % progressEvery === 0 && job.processed < items.length) await this.save(job, owned);
        this.changed(job);
      }
      const completed: Job = { ...job, status: 'COMPLETED', completedAt: this.now() };
      await store.commit(this.finishMutations(completed), { expect: [owned] });
      this.current = undefined;
      this.changed(completed);
      await this.removeDone((jobId) => jobId === id);
    } catch (error) {
      if (lostOwnership(error)) return; // another instance runs it now: nothing to write
      const reason = `Unexpected error at item ${job.processed}`;
      const failed: Job = { ...job, status: 'FAILED', reason, completedAt: this.now() };
      this.report(error, failed);
      // If this commit fails too the job stays RUNNING and is run again by the next recover().
      try {
        await store.commit(this.finishMutations(failed), { expect: [owned] });
        this.current = undefined;
        this.changed(failed);
        await this.removeDone((jobId) => jobId === id);
      } catch (cause) {
        if (!lostOwnership(cause)) this.report(cause, failed);
      }
    } finally {
      this.current = undefined;
    }
  }

  /** Commits a snapshot of the live job (arrays copied: the live ones keep growing). */
  private save(job: Job, owned: Precondition): Promise<void> {
    const record: Job = { ...job, created: [...job.created], failed: [...job.failed] };
    return this.options.store.commit([{ op: 'put', collection: JOBS_COLLECTION, record }], { expect: [owned] });
  }

  private finishMutations(job: Job): Mutation[] {
    return [
      { op: 'put', collection: JOBS_COLLECTION, record: job },
      { op: 'delete', collection: JOB_ITEMS_COLLECTION, id: job.id },
      { op: 'delete', collection: JOB_OWNERS_COLLECTION, id: job.id },
    ];
  }

  /** Deletes the done-records of the jobs `finished` selects, in batches of 100. */
  private async removeDone(finished: (jobId: number) => boolean): Promise<void> {
    const { store } = this.options;
    let batch: Mutation[] = [];
    for (const done of Array.from(store.values(JOB_DONE_COLLECTION))) {
      if (!finished(Math.floor(done.id / JOB_ITEM_SLOTS))) continue;
      batch.push({ op: 'delete', collection: JOB_DONE_COLLECTION, id: done.id });
      if (batch.length === 100) {
        await store.commit(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await store.commit(batch);
  }

  private view(id: number): Job | undefined {
    const live = this.current;
    if (live?.id === id) return { ...live, created: [...live.created], failed: [...live.failed] };
    return this.options.store.get<Job>(JOBS_COLLECTION, id);
  }

  /** Hands an unexpected error to `onError`; a throwing hook must not stop the FAILED commit. */
  private report(error: unknown, job: Job | undefined): void {
    try {
      if (job !== undefined) this.options.onError?.(error, job);
    } catch {
      // nothing sensible left to do with an error about an error
    }
  }

  private now(): string {
    return this.options.now().toISOString();
  }
}

/** PENDING or RUNNING: someone has to finish it. */
function unfinished(job: Job | undefined): job is Job {
  return job?.status === 'PENDING' || job?.status === 'RUNNING';
}

/** The commit failed because another instance took the job over (or did the item). */
function lostOwnership(error: unknown): boolean {
  return (
    error instanceof RecordStoreError &&
    error.code === 'ERR_STORE_CONFLICT' &&
    (error.failed?.collection === JOB_OWNERS_COLLECTION || error.failed?.collection === JOB_DONE_COLLECTION)
  );
}

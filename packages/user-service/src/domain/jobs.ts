/**
 * Asynchronous user creation (SPEC "Other endpoints": POST /api/async/users answers 202 with a
 * Location, GET /api/async/users/status reports `status`, `COMPLETED` marking completion).
 *
 * A job is committed durably (record + its items) before `submit` resolves, so a 202 survives a
 * crash. One background worker runs jobs in submission order, item by item, through the same
 * `createUser` as POST /api/users, so validation is identical.
 *
 * States: PENDING -> RUNNING -> COMPLETED (item validation failures are listed in `failed`, they
 * do not fail the job) or FAILED (an unexpected, non-4xx error; the remaining items are skipped).
 */
import { BadRequestError, NotFoundError, PayloadTooLargeError, WebApplicationError } from '@jaxrs-node/pipeline';
import type { Mutation } from '../storage/record-store.js';
import type { IdempotentCommit } from './idempotency.js';
import { parseRecordId } from './record-id.js';
import {
  itemErrors,
  JOB_ITEMS_COLLECTION,
  JOBS_COLLECTION,
  MAX_JOB_ITEMS,
  type Job,
  type JobItems,
  type JobServiceOptions,
} from './jobs-model.js';

export {
  JOB_ITEMS_COLLECTION,
  JOBS_COLLECTION,
  MAX_JOB_ITEMS,
  NO_JOB_STATUS,
  type Job,
  type JobItemFailure,
  type JobServiceOptions,
  type JobStatus,
} from './jobs-model.js';

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

  constructor(options: JobServiceOptions) {
    this.options = {
      ...options,
      maxItems: options.maxItems ?? MAX_JOB_ITEMS,
      progressEvery: options.progressEvery ?? 20,
      now: options.now ?? (() => new Date()),
    };
    if (!Number.isSafeInteger(this.options.maxItems) || this.options.maxItems < 0) {
      throw new RangeError('JobService: maxItems must be a non-negative integer');
    }
    if (!Number.isSafeInteger(this.options.progressEvery) || this.options.progressEvery < 1) {
      throw new RangeError('JobService: progressEvery must be a positive integer');
    }
  }

  /**
   * Accepts a job: `body` must be an array of user bodies, or `undefined`/`null` (an empty body,
   * which makes a job of 0 items that completes). Resolves with the PENDING job once it is durable;
   * processing starts on a later turn of the event loop.
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
   * completes or fails. Returns the function that stops it. Nothing is replayed: read the current
   * state with {@link get} first (in the same synchronous block, so no change falls in between).
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

  /**
   * Start-up recovery; call once after `store.open()`, before `submit`. PENDING jobs had not
   * started any item (RUNNING is committed before the first `createUser`), so they are queued
   * again. RUNNING jobs are marked FAILED, reason `interrupted by restart`: re-running their items
   * could create duplicate users; `created` lists what was recorded before the crash.
   */
  async recover(): Promise<{ resumed: number; interrupted: number }> {
    const mutations: Mutation[] = [];
    const resume: number[] = [];
    let interrupted = 0;
    for (const job of this.options.store.values<Job>(JOBS_COLLECTION)) {
      this.latestId = job.id;
      if (this.queued.has(job.id) || this.current?.id === job.id) continue;
      if (job.status === 'PENDING') resume.push(job.id);
      if (job.status === 'RUNNING') {
        const failed: Job = { ...job, status: 'FAILED', reason: 'interrupted by restart', completedAt: this.now() };
        mutations.push(...this.finishMutations(failed));
        interrupted++;
      }
    }
    if (mutations.length > 0) await this.options.store.commit(mutations);
    for (const id of resume) this.enqueue(id);
    return { resumed: resume.length, interrupted };
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
    if (stored?.status !== 'PENDING') return;
    const items = store.get<JobItems>(JOB_ITEMS_COLLECTION, id)?.items ?? [];
    const job: Job = { ...stored, status: 'RUNNING', startedAt: this.now(), created: [], failed: [] };
    this.current = job;
    try {
      await this.save(job);
      this.changed(job);
      for (const [index, item] of items.entries()) {
        try {
          job.created.push((await createUser(item)).id);
        } catch (error) {
          if (!(error instanceof WebApplicationError) || error.status >= 500) throw error;
          job.failed.push({ index, errors: itemErrors(error) });
        }
        job.processed = index + 1;
        if (job.processed % progressEvery === 0 && job.processed < items.length) await this.save(job);
        this.changed(job);
      }
      const completed: Job = { ...job, status: 'COMPLETED', completedAt: this.now() };
      await store.commit(this.finishMutations(completed));
      this.current = undefined;
      this.changed(completed);
    } catch (error) {
      const reason = `Unexpected error at item ${job.processed}`;
      const failed: Job = { ...job, status: 'FAILED', reason, completedAt: this.now() };
      this.report(error, failed);
      // If this commit fails too the job stays RUNNING and recover() marks it FAILED on restart.
      await store.commit(this.finishMutations(failed)).catch((cause: unknown) => this.report(cause, failed));
      this.current = undefined;
      this.changed(failed);
    } finally {
      this.current = undefined;
    }
  }

  /** Commits a snapshot of the live job (arrays copied: the live ones keep growing). */
  private save(job: Job): Promise<void> {
    const record: Job = { ...job, created: [...job.created], failed: [...job.failed] };
    return this.options.store.commit([{ op: 'put', collection: JOBS_COLLECTION, record }]);
  }

  private finishMutations(job: Job): Mutation[] {
    return [
      { op: 'put', collection: JOBS_COLLECTION, record: job },
      { op: 'delete', collection: JOB_ITEMS_COLLECTION, id: job.id },
    ];
  }

  private view(id: number): Job | undefined {
    const live = this.current;
    if (live?.id === id) return { ...live, created: [...live.created], failed: [...live.failed] };
    return this.options.store.get<Job>(JOBS_COLLECTION, id);
  }

  /** Hands an unexpected error to `onError`; a throwing hook must not stop the FAILED commit. */
  private report(error: unknown, job: Job): void {
    try {
      this.options.onError?.(error, job);
    } catch {
      // nothing sensible left to do with an error about an error
    }
  }

  private now(): string {
    return this.options.now().toISOString();
  }
}

/**
 * Vocabulary of asynchronous user creation (`docs/api.md` rule 22): the job record, which is also
 * the body of the status endpoint, its states and limits. The worker is in `service.ts`.
 */
import type { WebApplicationError } from '@jaxrs-node/pipeline';
import type { Mutation, Precondition, RecordStore, StoredRecord } from '../../storage/record-store.js';

/** Record-store collection of jobs. */
export const JOBS_COLLECTION = 'jobs';
/** Items of jobs not yet finished, keyed by job id; deleted when the job finishes. */
export const JOB_ITEMS_COLLECTION = 'job-items';
/**
 * Which instance runs a job, keyed by job id; leased to that instance (on a shared store the
 * record vanishes when the instance dies, and another instance takes the job over).
 */
export const JOB_OWNERS_COLLECTION = 'job-owners';
/**
 * One record per item whose user was created, id `jobId * JOB_ITEM_SLOTS + index`, committed in
 * the same batch as the user and only if absent: an item creates its user exactly once, whoever
 * runs the job. Deleted after the job finishes.
 */
export const JOB_DONE_COLLECTION = 'job-done';
/** Item slots per job in {@link JOB_DONE_COLLECTION} ids; the largest accepted job. */
export const JOB_ITEM_SLOTS = 1024;
/** Default largest job (`docs/api.md` rule 36: an unpaged user list holds at most 1000 items). */
export const MAX_JOB_ITEMS = 1000;

export type JobStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

/** One item that `createUser` rejected with a 4xx error. */
export interface JobItemFailure {
  /** Position of the item in the submitted array. */
  index: number;
  /** The error's `details` when it is an array (validation violations), else `[message]`. */
  errors: unknown[];
}

/** A job record, also the body of the status endpoint. */
export interface Job extends StoredRecord {
  id: number;
  status: JobStatus;
  total: number;
  /** Items whose outcome is recorded in `created` or `failed`. */
  processed: number;
  /** Ids of the users created, in item order. */
  created: number[];
  failed: JobItemFailure[];
  submittedAt: string;
  startedAt?: string;
  completedAt?: string;
  /** Why a job FAILED; safe to show to clients (no internal error text). */
  reason?: string;
}

/**
 * Status reported when no job was ever submitted. Chosen over an `IDLE` value: nothing is pending,
 * and clients polling until `COMPLETED` (`docs/api.md` rule 22) terminate.
 */
export const NO_JOB_STATUS = Object.freeze({ status: 'COMPLETED', total: 0, processed: 0 } as const);

/** Options of {@link JobService}. */
export interface JobServiceOptions {
  store: RecordStore;
  /**
   * Creates one user, committing `options.alsoCommit(created)` in the same batch under
   * `options.expect` (e.g. `(body, options) => users.create(body, options)`); a
   * {@link WebApplicationError} with a 4xx status marks the item as failed.
   */
  createUser: (body: unknown, options: CreateItemOptions) => Promise<{ id: number }>;
  /** Largest accepted job; more items are 413. Default {@link MAX_JOB_ITEMS}. */
  maxItems?: number;
  /** Progress is committed every this many items (and at the end). Default 20. */
  progressEvery?: number;
  /** Told about unexpected errors (e.g. to log them); their text never reaches clients. */
  onError?: (error: unknown, job: Job) => void;
  /** Clock of the job timestamps (tests pin it). */
  now?: () => Date;
}

/** What the job adds to the batch that creates an item's user. */
export interface CreateItemOptions {
  alsoCommit: (created: { id: number }) => Mutation[];
  expect: readonly Precondition[];
}

/** The items of a job, stored apart so status responses never carry user bodies. */
export interface JobItems extends StoredRecord {
  items: unknown[];
}

/** Validation details when they are a JSON-safe array, else the message: they go into a record. */
export function itemErrors(error: WebApplicationError): unknown[] {
  if (Array.isArray(error.details)) {
    try {
      return JSON.parse(JSON.stringify(error.details)) as unknown[];
    } catch {
      // fall through: e.g. a BigInt or a cycle in the details
    }
  }
  return [error.message];
}

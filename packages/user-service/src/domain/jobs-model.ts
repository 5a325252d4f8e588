/**
 * Vocabulary of asynchronous user creation (SPEC "Async operation"): the job record, which is also
 * the body of the status endpoint, its states and limits. The worker is in `jobs.ts`.
 */
import type { WebApplicationError } from '@jaxrs-node/pipeline';
import type { RecordStore, StoredRecord } from '../storage/record-store.js';

/** Record-store collection of jobs. */
export const JOBS_COLLECTION = 'jobs';
/** Items of jobs not yet finished, keyed by job id; deleted when the job finishes. */
export const JOB_ITEMS_COLLECTION = 'job-items';
/** Default largest job (SPEC "Limits": an unpaged user list holds at most 1000 items). */
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
 * and clients polling until `COMPLETED` (SPEC "Async operation") terminate.
 */
export const NO_JOB_STATUS = Object.freeze({ status: 'COMPLETED', total: 0, processed: 0 } as const);

/** Options of {@link JobService}. */
export interface JobServiceOptions {
  store: RecordStore;
  /** Creates one user; a {@link WebApplicationError} with a 4xx status marks the item as failed. */
  createUser: (body: unknown) => Promise<{ id: number }>;
  /** Largest accepted job; more items are 413. Default {@link MAX_JOB_ITEMS}. */
  maxItems?: number;
  /** Progress is committed every this many items (and at the end). Default 20. */
  progressEvery?: number;
  /** Told about unexpected errors (e.g. to log them); their text never reaches clients. */
  onError?: (error: unknown, job: Job) => void;
  /** Clock of the job timestamps (tests pin it). */
  now?: () => Date;
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

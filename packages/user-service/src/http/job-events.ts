/**
 * A job's progress as server-sent events (WHATWG HTML §9.2) and the per-job event logs that let
 * a client reconnecting with `Last-Event-ID` (§9.2.4) get every event it missed, not just the
 * current state.
 *
 * Ids grow with the progress and mean the same on every instance: `0` PENDING, `1 + processed`
 * while RUNNING (one event per item on the instance that runs the job), `total + 2` once
 * COMPLETED or FAILED. A job run again after a restart or a takeover starts counting from 0: its
 * states up to the highest id already logged are not logged or sent again, so ids stay
 * increasing and never repeat within a job.
 *
 * Each job someone streams gets a bounded log (the pipeline's `EventLog`) from its first
 * subscriber on, fed by every change until the job ends; it keeps every event of the largest job
 * ({@link JOB_EVENT_LOG_CAPACITY}). At most {@link JOB_EVENT_LOGS} jobs' logs are kept (the least
 * recently streamed is dropped first). The logs live in this process: a client whose id is not in
 * this instance's log (another instance, a restart, a dropped log) gets the `resync` event of the
 * library and then the current state.
 */
import { EventLog, OutboundSseEvent, type SseEventSink } from '@jaxrs-node/pipeline';
import { JOB_ITEM_SLOTS, type Job, type JobService } from '../domain/jobs/service.js';

/** Events a job's log keeps: every event of the largest job (PENDING, RUNNING 0..n, the end). */
export const JOB_EVENT_LOG_CAPACITY = JOB_ITEM_SLOTS + 3;
/** Jobs whose logs are kept at once (a log of the largest job holds about 1 000 small events). */
export const JOB_EVENT_LOGS = 8;

/** The options of {@link JobEventLogs}; the defaults are the service's. */
export interface JobEventLogsOptions {
  /** Events per job. Default {@link JOB_EVENT_LOG_CAPACITY}. */
  capacity?: number;
  /** Jobs whose logs are kept. Default {@link JOB_EVENT_LOGS}. */
  maxJobs?: number;
}

/** One job's log and what was logged last. */
interface JobLog {
  readonly log: EventLog;
  /** The newest event logged (the current state as the stream tells it) and its numeric id. */
  latest: OutboundSseEvent;
  lastId: number;
  /** Stops following the job (once it ended, or when the log is dropped). */
  stop: () => void;
}

/** Whether the job has ended (its last event was sent). */
export const isFinished = (job: Job): boolean => job.status === 'COMPLETED' || job.status === 'FAILED';

/** Grows with the job's progress: PENDING 0, RUNNING 1 + processed items, finished total + 2. */
export const progressId = (job: Job): number => (job.status === 'PENDING' ? 0 : isFinished(job) ? job.total + 2 : 1 + job.processed);

/** A `Last-Event-ID` that can be one of ours (decimal, at most 9 digits), as a number. */
const numericId = (lastEventId: string | undefined): number | undefined =>
  lastEventId !== undefined && /^\d{1,9}$/.test(lastEventId) ? Number(lastEventId) : undefined;

/**
 * The event logs of the jobs being streamed, and the streams themselves.
 *
 * @example
 * const events = new JobEventLogs(jobs);
 * // in a @Produces('text/event-stream') method:
 * if (!events.stream(jobs.get(id), sink, lastEventId)) return Response.noContent().build();
 */
export class JobEventLogs {
  /** By job id, least recently streamed first (a Map keeps insertion order). */
  private readonly logs = new Map<number, JobLog>();
  private readonly capacity: number;
  private readonly maxJobs: number;

  constructor(
    private readonly jobs: JobService,
    options: JobEventLogsOptions = {},
  ) {
    this.capacity = options.capacity ?? JOB_EVENT_LOG_CAPACITY;
    this.maxJobs = options.maxJobs ?? JOB_EVENT_LOGS;
    if (!Number.isSafeInteger(this.maxJobs) || this.maxJobs < 1) {
      throw new RangeError(`JobEventLogs: maxJobs must be a positive integer, got ${String(options.maxJobs)}`);
    }
  }

  /**
   * Streams `job` to `sink`: after `lastEventId` the events it missed from the log (or, when the
   * log does not have that id, `resync` then the current state), without one the current state;
   * then every change until the job ends, when the stream is closed. Returns false, sending
   * nothing, when the client has already seen the end (answer 204: an `EventSource` then stops
   * reconnecting).
   */
  stream(job: Job, sink: SseEventSink, lastEventId: string | undefined): boolean {
    const last = lastEventId === '' ? undefined : lastEventId; // an empty Last-Event-ID is no id (WHATWG HTML §9.2.4)
    if (isFinished(job) && (numericId(last) ?? -1) >= progressId(job)) return false;
    const entry = this.logOf(job);
    // Replay, then follow, in one synchronous block: no change falls in between (EventLog's rule).
    if (!entry.log.replay(sink, last) || last === undefined) void sink.send(entry.latest);
    if (isFinished(job)) {
      sink.close();
      return true;
    }
    let seen = entry.lastId;
    const stop = this.jobs.watch(job.id, (j) => {
      const id = progressId(j);
      if (id <= seen) return;
      seen = id;
      void sink.send(progressEvent(j));
      if (isFinished(j)) {
        stop();
        sink.close();
      }
    });
    if (sink.signal.aborted) stop();
    else sink.signal.addEventListener('abort', stop, { once: true });
    return true;
  }

  /** The job's log, made the most recently used and brought up to `job` (its current state). */
  private logOf(job: Job): JobLog {
    let entry = this.logs.get(job.id);
    if (entry === undefined) {
      const event = progressEvent(job);
      const log = new EventLog({ capacity: this.capacity });
      const created: JobLog = { log, latest: log.append(event), lastId: progressId(job), stop: () => undefined };
      if (!isFinished(job)) created.stop = this.jobs.watch(job.id, (j) => record(created, j));
      for (const [id, oldest] of this.logs) {
        if (this.logs.size < this.maxJobs) break;
        oldest.stop();
        this.logs.delete(id);
      }
      entry = created;
    } else {
      this.logs.delete(job.id);
      // The live view can be ahead of the last change reported (the job's progress commit is awaited in between).
      record(entry, job);
    }
    this.logs.set(job.id, entry);
    return entry;
  }
}

/** Logs `job`'s state unless its id is not newer than the log's; stops following a job that ended. */
function record(entry: JobLog, job: Job): void {
  const id = progressId(job);
  if (id <= entry.lastId) return;
  entry.latest = entry.log.append(progressEvent(job));
  entry.lastId = id;
  if (isFinished(job)) entry.stop();
}

/** The `progress` event of a job's state: its id and counts (the job resource has the details). */
function progressEvent(job: Job): OutboundSseEvent {
  const { id, status, total, processed, reason } = job;
  const data = {
    id,
    status,
    total,
    processed,
    created: job.created.length,
    failed: job.failed.length,
    ...(reason === undefined ? {} : { reason }),
  };
  return OutboundSseEvent.builder()
    .id(String(progressId(job)))
    .name('progress')
    .data(data)
    .build();
}

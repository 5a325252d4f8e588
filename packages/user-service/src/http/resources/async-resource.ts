import { inject, injectable } from 'tsyringe';
import {
  ApiTags,
  Consumes,
  Context,
  Entity,
  GET,
  HeaderParam,
  LastEventId,
  Path,
  PathParam,
  POST,
  Produces,
  Response,
  Sse,
  SseEventSink,
  UriInfo,
} from '@jaxrs-node/pipeline';
import type { IdempotencyService } from '../../domain/idempotency.js';
import { NO_JOB_STATUS, type Job, type JobService } from '../../domain/jobs.js';
import { fingerprintOf, IDEMPOTENCY_KEY_HEADER, respond } from '../idempotent-response.js';
import { TOKENS } from '../tokens.js';
import { JobIdText } from './ids.js';

/**
 * Asynchronous user creation. `POST /api/async/users` takes an optional JSON array of user bodies
 * (an empty body is a job of 0 items) and answers 202 with `Location` of the job's own status
 * resource. `GET /api/async/users/status` is the latest job's status (`COMPLETED` when none ever
 * ran, so pollers stop). `GET /api/async/users/{jobId}/events` streams a job's progress as
 * server-sent events instead of polling.
 */
@injectable()
@Path('/api/async/users')
@Produces('application/json')
@ApiTags('async')
export class AsyncUsersResource {
  constructor(
    @inject(TOKENS.jobs) private readonly jobs: JobService,
    @inject(TOKENS.idempotency) private readonly idempotency: IdempotencyService,
  ) {}

  @POST()
  @Consumes('application/json')
  async submit(
    @Entity(Object, { optional: true }) body: unknown,
    @Context() uri: UriInfo,
    @HeaderParam(IDEMPOTENCY_KEY_HEADER) key?: string,
  ): Promise<Response> {
    const location = (jobId: number) => uri.baseUriBuilder().path(AsyncUsersResource).path(AsyncUsersResource, 'job').build(jobId);
    const outcome = await this.idempotency.execute(key, fingerprintOf(uri, body), (claim) =>
      this.jobs.submit(
        body,
        claim?.commitWith((job) => ({ status: 202, location: String(location(job.id)), body: job })),
      ),
    );
    return respond(outcome, (job) => Response.status(202).location(location(job.id)).entity(job).build());
  }

  @GET('status')
  status(): unknown {
    return this.jobs.latest() ?? NO_JOB_STATUS;
  }

  @GET('jobs/{id}')
  job(@PathParam('id', { type: JobIdText }) id: string): unknown {
    return this.jobs.get(id);
  }

  /**
   * The job's progress as server-sent events (`text/event-stream`), each named `progress` with
   * `{ id, status, total, processed, created, failed, reason? }` (counts) as data: the current
   * state first, then every change (`RUNNING` after each item), ending after `COMPLETED` or
   * `FAILED`. Event ids grow with the progress, so a client that reconnects with `Last-Event-ID`
   * resumes: it gets the current state only when it is newer than what it saw, and a 204 (which
   * tells an `EventSource` to stop reconnecting) once it has seen the end. Unknown job: 404.
   */
  @GET('{jobId}/events')
  @Produces('text/event-stream')
  events(
    @PathParam('jobId') jobId: string,
    @Context() sink: SseEventSink,
    @Context() sse: Sse,
    @LastEventId() lastEventId?: string,
  ): Response | undefined {
    const job = this.jobs.get(jobId);
    let seen = lastEventId !== undefined && /^\d{1,9}$/.test(lastEventId) ? Number(lastEventId) : -1;
    if (isFinished(job) && seen >= progressId(job)) return Response.noContent().build();
    const publish = (j: Job): void => {
      const id = progressId(j);
      if (id <= seen) return;
      seen = id;
      void sink.send(sse.newEventBuilder().id(String(id)).name('progress').data(progressOf(j)).build());
      if (isFinished(j)) {
        stop();
        sink.close();
      }
    };
    // Watch, then send the current state, in one synchronous block: no change falls in between.
    const stop = this.jobs.watch(job.id, publish);
    sink.signal.addEventListener('abort', stop, { once: true });
    publish(job);
    return undefined;
  }
}

const isFinished = (job: Job): boolean => job.status === 'COMPLETED' || job.status === 'FAILED';

/** Grows with the job's progress: PENDING 0, RUNNING 1 + processed items, finished total + 2. */
const progressId = (job: Job): number => (job.status === 'PENDING' ? 0 : isFinished(job) ? job.total + 2 : 1 + job.processed);

/** What a progress event carries: the state and its counts (the job resource has the details). */
function progressOf(job: Job): Record<string, unknown> {
  const { id, status, total, processed, reason } = job;
  return {
    id,
    status,
    total,
    processed,
    created: job.created.length,
    failed: job.failed.length,
    ...(reason === undefined ? {} : { reason }),
  };
}

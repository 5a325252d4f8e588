import { inject, injectable } from 'tsyringe';
import {
  ApiOperation,
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
  SseEventSink,
  UriInfo,
} from '@jaxrs-node/pipeline';
import type { IdempotencyService } from '../../domain/common/idempotency.js';
import { NO_JOB_STATUS, type Job, type JobService } from '../../domain/jobs/service.js';
import { fingerprintOf, IDEMPOTENCY_KEY_HEADER, respond } from '../idempotent-response.js';
import type { JobEventLogs } from '../job-events.js';
import { TOKENS } from '../di-tokens.js';
import { JobIdText } from './ids.js';

/**
 * Asynchronous user creation. `POST /api/async/users` takes an optional JSON array of user bodies
 * (an empty body is a job of 0 items) and answers 202 with `Location` of the job's own status
 * resource. `GET /api/async/users/status` is the latest job's status (`COMPLETED` when none ever
 * ran, so pollers stop). `GET /api/async/users/jobs/{id}/events` streams a job's progress as
 * server-sent events instead of polling (also at its deprecated first path, `{jobId}/events`).
 */
@injectable()
@Path('/api/async/users')
@Produces('application/json')
@ApiTags('async')
export class AsyncUsersResource {
  constructor(
    @inject(TOKENS.jobs) private readonly jobs: JobService,
    @inject(TOKENS.idempotency) private readonly idempotency: IdempotencyService,
    @inject(TOKENS.jobEvents) private readonly jobEvents: JobEventLogs,
  ) {}

  @POST()
  @Consumes('application/json')
  async submit(
    @Entity(Object, { optional: true }) body: unknown,
    @Context() uri: UriInfo,
    @HeaderParam(IDEMPOTENCY_KEY_HEADER) key?: string,
  ): Promise<Response<Job>> {
    const location = (jobId: number) => uri.baseUriBuilder().path(AsyncUsersResource).path(AsyncUsersResource, 'job').build(jobId);
    const outcome = await this.idempotency.execute(
      key,
      () => fingerprintOf(uri, body),
      (claim) =>
        this.jobs.submit(
          body,
          claim?.commitWith((job) => ({ status: 202, location: String(location(job.id)), body: job })),
        ),
    );
    return respond(outcome, (job) => Response.status(202).location(location(job.id)).entity(job).build());
  }

  @GET('status')
  status(): Job | typeof NO_JOB_STATUS {
    return this.jobs.latest() ?? NO_JOB_STATUS;
  }

  @GET('jobs/{id}')
  job(@PathParam('id', { type: JobIdText }) id: string): Job {
    return this.jobs.get(id);
  }

  /**
   * The job's progress as server-sent events (`text/event-stream`), each named `progress` with
   * `{ id, status, total, processed, created, failed, reason? }` (counts) as data: the current
   * state first, then every change (`RUNNING` after each item), ending after `COMPLETED` or
   * `FAILED`. Event ids grow with the progress; a client that reconnects with `Last-Event-ID` gets
   * every event it missed from this instance's log of the job, or `resync` then the current state
   * when the log does not have that id, and a 204 (which tells an `EventSource` to stop
   * reconnecting) once it has seen the end. Unknown job: 404. See `JobEventLogs`.
   */
  @GET('jobs/{id}/events')
  @Produces('text/event-stream')
  events(
    @PathParam('id', { type: JobIdText }) id: string,
    @Context() sink: SseEventSink,
    @LastEventId() lastEventId?: string,
  ): Response | undefined {
    return this.jobEvents.stream(this.jobs.get(id), sink, lastEventId) ? undefined : Response.noContent().build();
  }

  /**
   * The same stream at its first path, kept for the clients that use it. Deprecated: next to
   * `jobs/{id}` a router or a generated client cannot tell the literal `jobs` from a job id.
   */
  @GET('{jobId}/events')
  @Produces('text/event-stream')
  @ApiOperation({ deprecated: true, summary: 'Deprecated: use GET /api/async/users/jobs/{id}/events (the same stream)' })
  legacyEvents(
    @PathParam('jobId', { type: JobIdText }) jobId: string,
    @Context() sink: SseEventSink,
    @LastEventId() lastEventId?: string,
  ): Response | undefined {
    return this.events(jobId, sink, lastEventId);
  }
}

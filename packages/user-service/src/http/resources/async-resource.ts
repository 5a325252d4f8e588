import { inject, injectable } from 'tsyringe';
import { Consumes, Context, Entity, GET, Path, PathParam, POST, Produces, Response, UriInfo } from '@jaxrs-node/pipeline';
import { NO_JOB_STATUS, type JobService } from '../../domain/jobs.js';
import { TOKENS } from '../tokens.js';

/**
 * Asynchronous user creation. `POST /api/async/users` takes an optional JSON array of user bodies
 * (an empty body is a job of 0 items) and answers 202 with `Location` of the job's own status
 * resource. `GET /api/async/users/status` is the latest job's status (`COMPLETED` when none ever
 * ran, so pollers stop).
 */
@injectable()
@Path('/api/async/users')
@Produces('application/json')
export class AsyncUsersResource {
  constructor(@inject(TOKENS.jobs) private readonly jobs: JobService) {}

  @POST()
  @Consumes('application/json')
  async submit(@Entity(Object, { optional: true }) body: unknown, @Context() uri: UriInfo): Promise<Response> {
    const job = await this.jobs.submit(body);
    return Response.status(202)
      .location(uri.baseUriBuilder().path(AsyncUsersResource).path(AsyncUsersResource, 'job').build(job.id))
      .entity(job)
      .build();
  }

  @GET('status')
  status(): unknown {
    return this.jobs.latest() ?? NO_JOB_STATUS;
  }

  @GET('jobs/{id}')
  job(@PathParam('id') id: string): unknown {
    return this.jobs.get(id);
  }
}

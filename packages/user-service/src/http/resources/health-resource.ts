import { inject, injectable } from 'tsyringe';
import { ApiTags, GET, Path, Produces, Response } from '@jaxrs-node/pipeline';
import { TOKENS } from '../di-tokens.js';
import type { RecordStore } from '../../storage/index.js';

/** `GET /api/health` and `GET /health`: no credentials, never rate limited. */
@injectable()
@Path('/')
@Produces('application/json')
@ApiTags('health')
export class HealthResource {
  constructor(@inject(TOKENS.store) private readonly store: RecordStore) {}
  @GET('api/health') api(): Response {
    return this.status();
  }
  @GET('health') root(): Response {
    return this.status();
  }
  /**
   * 200 `UP` while the store takes writes; 503 `DEGRADED` with the failing write's reason (its
   * errno) and since when, while it does not (a full disk): reads still work, writes answer
   * 507/503, and the store retries by itself, so the status returns to `UP` without a restart.
   */
  private status(): Response {
    const users = this.store.size('users');
    const write = this.store.writeStatus();
    if (write.writable) return new Response(200, { status: 'UP', users });
    return new Response(503, { status: 'DEGRADED', users, reason: write.reason, since: write.since }, { 'retry-after': '5' });
  }
}

/**
 * Example 20, deadlines and disconnects: every request has an `AbortSignal` (`@Context() signal`)
 * that fires when the client goes away or the method's deadline passes; hand it to whatever the
 * method awaits, and the work stops with the request.
 *
 *   curl localhost:3000/reports/quick                 → 200 within the deadline
 *   curl -i 'localhost:3000/reports/slow?ms=2000'     → 503, Retry-After: 1 (@Deadline(500) passed;
 *                                                       the signal stopped the work, the late result is dropped)
 *   curl -i 'localhost:3000/reports/queued?ms=2000'   → 202 {"queued":true} (onTimeout answers instead)
 *   curl 'localhost:3000/reports/slow?ms=5000' & kill %1   → the work is cancelled at once (see /reports/stats)
 *   curl localhost:3000/reports/stats                 → how many jobs finished and how many were cancelled
 *
 * The application's `deadline` option (here 2 s) covers every method without its own `@Deadline`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Application, Context, Deadline, DefaultValue, GET, Path, QueryParam, Response } from '@jaxrs-node/pipeline';

/** What happened to the work the methods started. */
export const stats = { started: 0, finished: 0, cancelled: 0 };

/** Work that takes `ms` and stops early when `signal` fires (as fetch, undici and timers do). */
async function work(ms: number, signal: AbortSignal): Promise<string> {
  stats.started++;
  try {
    await sleep(ms, undefined, { signal });
    stats.finished++;
    return `report after ${ms} ms`;
  } catch (e) {
    stats.cancelled++;
    throw e;
  }
}

@Path('/reports')
export class Reports {
  @GET() @Path('quick') quick(@Context() signal: AbortSignal): Promise<string> {
    return work(10, signal);
  }

  @GET() @Path('slow') @Deadline(500) slow(
    @QueryParam('ms') @DefaultValue('100') ms: number,
    @Context() signal: AbortSignal,
  ): Promise<string> {
    return work(ms, signal);
  }

  @GET()
  @Path('queued')
  @Deadline(300, { onTimeout: () => Response.accepted({ queued: true }).build() })
  queued(@QueryParam('ms') @DefaultValue('100') ms: number, @Context() signal: AbortSignal): Promise<string> {
    return work(ms, signal);
  }

  @GET() @Path('stats') stats(): object {
    return { ...stats };
  }
}

export function createApp(): Application {
  return new Application({ resources: [Reports], deadline: 2_000 });
}

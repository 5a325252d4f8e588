/**
 * What the default mapping logs: unexpected errors and 500s always; a 5xx the application chose to
 * answer (a thrown ServiceUnavailableError for load shedding, a 507) only when it wraps a cause.
 * Load shedding must not flood the error log with one stack per refused request.
 */
import { describe, expect, it } from 'vitest';
import { Application, GET, InternalServerError, Path, PathParam, ServiceUnavailableError, WebApplicationError } from '../../src/index.js';

@Path('/fail/{kind}')
class Failing {
  @GET() get(@PathParam('kind') kind: string): string {
    if (kind === 'unexpected') throw new Error('bug');
    if (kind === 'internal') throw new InternalServerError('explicit 500');
    if (kind === 'shed') throw new ServiceUnavailableError('busy', { retryAfterSeconds: 1 });
    if (kind === 'full') throw new WebApplicationError(507, 'Insufficient storage');
    throw new ServiceUnavailableError('upstream down', { cause: new Error('ECONNREFUSED') });
  }
}

describe('which 5xx the default mapping logs', () => {
  it.each([
    ['unexpected', 500, 1],
    ['internal', 500, 1],
    ['shed', 503, 0],
    ['full', 507, 0],
    ['caused', 503, 1],
  ])('%s: %i, logged %i time(s)', async (kind, status, logged) => {
    const lines: unknown[] = [];
    const app = new Application({ resources: [Failing], logger: (e) => lines.push(e) });
    expect((await app.inject(`/fail/${kind}`)).status).toBe(status);
    expect(lines).toHaveLength(logged);
  });
});

// The baseline of service-bench.ts (a): the pipeline's bare JSON route. One @Path resource,
// default Application options, no providers. The answer has the same fields (and about the same
// 230 bytes) as the user service's GET /api/users/1.
// Usage: PORT=0 node dist/service/pipeline-bare-server.js  -> prints `listening on http://127.0.0.1:<port>`
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Application, GET, Path, PathParam, Response } from '@jaxrs-node/pipeline';

/**
 * BARE_EXTRA_HEADERS=1: answer with the nine extra headers the user service sends on this route
 * (request id, API version, three CORS, three rate-limit, Vary), to see what they alone cost.
 */
const EXTRA_HEADERS = process.env.BARE_EXTRA_HEADERS === '1';

@Path('/api/users')
class UserResource {
  @GET('{id}')
  get(@PathParam('id') id: number): object {
    const user = {
      id,
      email: 'test@example.com',
      firstName: 'John',
      lastName: 'Doe',
      age: 30,
      fullName: 'John Doe',
      status: 'ACTIVE',
      roles: ['USER'],
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      birthDate: '1994-05-15',
    };
    if (!EXTRA_HEADERS) return user;
    return Response.ok(user)
      .header('x-api-version', '1')
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'GET, POST, PUT, DELETE')
      .header('access-control-allow-headers', 'X-API-Key, Content-Type')
      .header('x-rate-limit-limit', 1000000)
      .header('x-rate-limit-remaining', 999999)
      .header('x-rate-limit-reset', 42)
      .header('x-request-id', randomUUID())
      .header('vary', 'Accept-Encoding')
      .build();
  }
}

const app = new Application({ resources: [UserResource] });
const { port } = await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => {
  void app.close(500).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

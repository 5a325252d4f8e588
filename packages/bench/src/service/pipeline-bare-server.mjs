// The baseline of service-bench.mjs (a): the pipeline's bare JSON route. One @Path resource,
// default Application options, no providers. The decorators are applied the way tsc's legacy
// decorator output does it (Reflect.decorate + design:paramtypes metadata), so this plain JS file
// runs against @jaxrs-node/pipeline's dist without a build step. The answer has the same fields
// (and about the same 230 bytes) as the user service's GET /api/users/1.
// Usage: PORT=0 node bench/pipeline-bare-server.mjs  -> prints `listening on http://127.0.0.1:<port>`
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Application, GET, Path, PathParam, Response } from '@jaxrs-node/pipeline';

/**
 * BARE_EXTRA_HEADERS=1: answer with the nine extra headers the user service sends on this route
 * (request id, API version, three CORS, three rate-limit, Vary), to see what they alone cost.
 */
const EXTRA_HEADERS = process.env.BARE_EXTRA_HEADERS === '1';

class UserResource {
  get(id) {
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

/** tsc's `__param`: a parameter decorator as a method decorator. */
const param = (index, decorator) => (target, key) => decorator(target, key, index);

const proto = UserResource.prototype;
const descriptor = Reflect.decorate(
  [
    GET('{id}'),
    param(0, PathParam('id')),
    Reflect.metadata('design:type', Function),
    Reflect.metadata('design:paramtypes', [Number]),
    Reflect.metadata('design:returntype', Object),
  ],
  proto,
  'get',
  Object.getOwnPropertyDescriptor(proto, 'get'),
);
if (descriptor) Object.defineProperty(proto, 'get', descriptor);
Reflect.decorate([Path('/api/users')], UserResource);

const app = new Application({ resources: [UserResource] });
const { port } = await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
const stop = () => {
  void app.close(500).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/**
 * Example 13, testing: components small enough to unit-test with
 * `@jaxrs-node/pipeline/testing`, no server (see `test/13-testing.test.ts`):
 *
 *   const ctx = createRequestContext({ headers: { 'x-request-id': 'abc' } });
 *   await runRequestFilter(new RequestIdFilter(), ctx);
 *   const res = await runResponseFilter(new RequestIdFilter(), ctx);   // res.getHeader('x-request-id') === 'abc'
 *   const { response } = await runWriterInterceptors([new EtagInterceptor()], { entity: { a: 1 } });
 *
 * The same components, assembled:
 *   curl -i -H 'X-Request-Id: my-id' localhost:3000/api/profile
 */
import { Application, Context, ContainerRequestContext, GET, Path } from '@jaxrs-node/pipeline';
import { EtagInterceptor, RequestIdFilter, requestIdOf } from './components.js';

export { EtagInterceptor, RequestIdFilter, requestIdOf } from './components.js';

@Path('/api/profile')
export class ProfileResource {
  @GET()
  get(@Context() ctx: ContainerRequestContext): { name: string; requestId: string | undefined } {
    return { name: 'Ada', requestId: requestIdOf(ctx) };
  }
}

/** The application. */
export function createApp(): Application {
  return new Application({ resources: [ProfileResource], providers: [new RequestIdFilter(), EtagInterceptor] });
}

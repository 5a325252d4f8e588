/**
 * Example 5, ordering: which providers run, in which order, made visible in an `X-Trace` header.
 *
 *   curl -si localhost:3000/ordering | grep -i x-trace
 *   pre-matching, request:1000, request:2000, request:5000, method, response:5000, response:3000,
 *   response:1000, write:4000 in, write:5000 in, write:5000 out, write:4000 out
 *
 * - request filters: ascending priority (pre-matching ones first of all);
 * - reader interceptors (only when a body is read): ascending, after every request filter;
 * - response filters: DESCENDING priority; then writer interceptors, ascending and nested.
 * - a filter that aborts: later request filters and the method are skipped, the response chain runs;
 * - a method that throws: the exception mapper's response goes through the response chain;
 * - no match (404): only pre-matching filters ran before; the response chain still runs.
 * (`new Application({ tracing: true })` gives a similar built-in `X-Pipeline-Trace` header.)
 */
import { Application, Context, ContainerRequestContext, GET, Path, POST } from '@jaxrs-node/pipeline';
import {
  AuthenticationResponseStep,
  AuthenticationStep,
  AuthorizationStep,
  CoderReadStep,
  CoderWriteStep,
  DemoError,
  DemoErrorMapper,
  HeaderResponseStep,
  PreMatchingStep,
  step,
  TraceHeaderInterceptor,
  UserReadStep,
  UserResponseStep,
  UserStep,
  UserWriteStep,
} from './steps.js';

@Path('/ordering')
export class OrderingResource {
  @GET()
  get(@Context() ctx: ContainerRequestContext): { ok: true } {
    step(ctx, 'method');
    return { ok: true };
  }

  /** Reads a body, so the reader interceptors run. */
  @POST()
  post(body: { n: number }, @Context() ctx: ContainerRequestContext): { received: number } {
    step(ctx, 'method');
    return { received: body.n };
  }

  @GET('/fail')
  fail(@Context() ctx: ContainerRequestContext): never {
    step(ctx, 'method');
    throw new DemoError('the method failed');
  }
}

/** The application. Registration order is deliberately shuffled: priorities decide, not order. */
export function createApp(): Application {
  return new Application({
    resources: [OrderingResource],
    providers: [
      UserWriteStep,
      UserResponseStep,
      UserStep,
      UserReadStep,
      TraceHeaderInterceptor,
      CoderWriteStep,
      HeaderResponseStep,
      AuthenticationResponseStep,
      AuthorizationStep,
      AuthenticationStep,
      CoderReadStep,
      PreMatchingStep,
      DemoErrorMapper,
    ],
  });
}

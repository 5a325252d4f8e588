import { inject, injectable } from 'tsyringe';
import { ApiSchema, ApiTags, Context, GET, Path, Produces, QueryParam, ContainerRequestContext } from '@jaxrs-node/pipeline';
import type { ClientConcurrency } from '../../domain/limits/client-concurrency.js';
import { DEFAULT_LARGE_DATA_COUNT, largeDataStream, MAX_LARGE_DATA_COUNT, parseLargeDataCount } from '../../domain/large-data/stream.js';
import { TOKENS } from '../di-tokens.js';

/**
 * The `count` of `/api/large-data` as text: `parseLargeDataCount` decides (its 400
 * `LARGE_DATA_BAD_COUNT`, an empty value meaning the default). `@ApiSchema` documents the values it
 * takes, so generated clients send a number.
 */
@ApiSchema({ type: 'integer', minimum: 0, maximum: MAX_LARGE_DATA_COUNT, default: DEFAULT_LARGE_DATA_COUNT })
export class LargeDataCountText {
  /** The text unchanged. */
  static fromString(raw: string): string {
    return raw;
  }
}

/**
 * `GET /api/large-data?count=N` (default 1000, at most 1 000 000): a JSON document streamed item by
 * item in constant memory; backpressure and client aborts reach the generator through the
 * pipeline's stream writer (`pipeline(body, res)` destroys it when the client goes away).
 * At most `LARGE_DATA_PER_CLIENT` of them per client (socket address) are in flight, and 64 in
 * total (see client-concurrency.ts); a stalled one is cut by the pipeline's `sendTimeout`.
 */
@injectable()
@Path('/api/large-data')
@ApiTags('misc')
export class LargeDataResource {
  constructor(@inject(TOKENS.largeData) private readonly downloads: ClientConcurrency) {}

  @GET()
  @Produces('application/json')
  stream(@QueryParam('count', { type: LargeDataCountText }) count: string | undefined, @Context() ctx: ContainerRequestContext): unknown {
    const items = parseLargeDataCount(count); // a bad count is a 400 without taking a slot
    const release = this.downloads.acquire(`a:${ctx.remoteAddress ?? 'unknown'}`);
    const body = largeDataStream({ count: items });
    // Whichever comes first: the body ends or is destroyed (client gone, sendTimeout), or the
    // connection closes before the body was ever piped (an error after this method).
    const socket = ctx.raw.socket;
    const done = (): void => {
      release();
      socket?.off('close', done); // a kept-alive socket serves many requests: no listener left behind
    };
    body.once('close', done);
    socket?.once('close', done);
    return body;
  }
}

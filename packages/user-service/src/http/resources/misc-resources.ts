import { inject, injectable } from 'tsyringe';
import { ApiSchema, ApiTags, Context, GET, Path, Produces, QueryParam, Response, ContainerRequestContext } from '@jaxrs-node/pipeline';
import type { ClientConcurrency } from '../../domain/limits/client-concurrency.js';
import { DEFAULT_LARGE_DATA_COUNT, largeDataStream, MAX_LARGE_DATA_COUNT, parseLargeDataCount } from '../../domain/large-data/stream.js';
import { USER_JSON_SCHEMA } from '../../domain/users/schema.js';
import { formatTimestamp } from '../../domain/users/model.js';
import { Enriched } from '../bindings.js';
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

/** `GET /test`: plain text. */
@Path('/test')
@ApiTags('misc')
export class TestResource {
  @GET() @Produces('text/plain') text(): string {
    return 'Test endpoint OK';
  }
}

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

/** The entity of `/api/custom-data`; `customField` is added by CustomFieldInterceptor. */
export class CustomData {
  constructor(
    readonly message: string,
    readonly generatedAt: string,
  ) {}
}

/** `GET /api/custom-data`: see CustomFieldInterceptor (a name-bound writer interceptor). */
@Path('/api/custom-data')
@Enriched()
@ApiTags('misc')
export class CustomDataResource {
  @GET()
  @Produces('application/json')
  get(): CustomData {
    return new CustomData('Custom data produced by the resource', formatTimestamp(new Date()));
  }
}

/** `GET /api/schema/user`: the JSON Schema every user representation validates against. */
@Path('/api/schema/user')
@ApiTags('misc')
export class SchemaResource {
  @GET()
  @Produces('application/schema+json', 'application/json')
  get(): unknown {
    return USER_JSON_SCHEMA;
  }
}

/**
 * Example 4, gzip: the library's `GzipWriterInterceptor`, a WriterInterceptor at ENTITY_CODER
 * priority that compresses the serialized body when `Accept-Encoding` allows gzip.
 *
 *   curl -s -H 'Accept-Encoding: gzip' localhost:3000/api/report | gunzip | head -c 200
 *
 * Writer interceptors run in ascending priority, each wrapping the next, so ENTITY_CODER (4000)
 * is outside every USER (5000) interceptor: those see the plain body, and gzip compresses what
 * they leave. `BodySizeInterceptor` makes that visible with an `X-Identity-Length` header.
 */
import {
  Application,
  GET,
  GzipWriterInterceptor,
  Path,
  Priorities,
  Priority,
  QueryParam,
  DefaultValue,
  type WriterInterceptor,
  type WriterInterceptorContext,
} from '@jaxrs-node/pipeline';

/** One row of the report. */
export interface ReportRow {
  id: number;
  region: string;
  revenue: number;
}

const REGIONS = ['north', 'south', 'east', 'west'];

@Path('/api')
export class ReportResource {
  /** Large and repetitive JSON: gzip typically makes it 10x smaller. */
  @GET('/report')
  report(@QueryParam('rows') @DefaultValue('500') rows: number): ReportRow[] {
    const n = Math.min(Math.max(Math.trunc(rows), 0), 10_000);
    return Array.from({ length: n }, (_, i) => ({ id: i + 1, region: REGIONS[i % 4]!, revenue: (i * 37) % 1000 }));
  }

  /** Below the threshold: compressing a few bytes would make them bigger. */
  @GET('/ping')
  ping(): { ok: true } {
    return { ok: true };
  }
}

/**
 * Records the size of the body the writer produced, before compression. It runs at USER
 * priority, i.e. INSIDE the gzip interceptor: `proceed()` here calls the writer directly.
 */
@Priority(Priorities.USER)
export class BodySizeInterceptor implements WriterInterceptor {
  async aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    await ctx.proceed();
    const body = ctx.body;
    if (typeof body === 'string') ctx.headers['x-identity-length'] = Buffer.byteLength(body);
    else if (body instanceof Uint8Array) ctx.headers['x-identity-length'] = body.byteLength;
  }
}

/** The application: compress JSON and text bodies of 1 KiB or more. */
export function createApp(): Application {
  return (
    new Application({ resources: [ReportResource] })
      // GzipWriterInterceptor already carries @Priority(Priorities.ENTITY_CODER); the explicit
      // priority only shows where a registration-time one goes (it beats the decorator).
      .register(new GzipWriterInterceptor({ threshold: 1024, level: 6 }), { priority: Priorities.ENTITY_CODER })
      .register(new BodySizeInterceptor())
  );
}

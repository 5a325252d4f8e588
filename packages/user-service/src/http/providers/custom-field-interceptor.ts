import type { WriterInterceptor, WriterInterceptorContext } from '@jaxrs-node/pipeline';
import { Enriched } from '../bindings.js';

/**
 * `GET /api/custom-data` gets its `customField` here: a writer interceptor name-bound with
 * `@Enriched()` replaces the entity with a copy that carries the field, BEFORE `proceed()`, so the
 * JSON writer (chosen after the interceptors) serialises the enriched object. The resource stays
 * unaware of it; any resource method marked `@Enriched()` gets the same treatment.
 */
@Enriched()
export class CustomFieldInterceptor implements WriterInterceptor {
  readonly name = 'CustomFieldInterceptor';

  aroundWriteTo(ctx: WriterInterceptorContext): Promise<void> {
    const entity = ctx.entity;
    if (entity !== null && typeof entity === 'object' && !Array.isArray(entity) && ctx.response.status < 400) {
      ctx.entity = { ...(entity as Record<string, unknown>), customField: 'custom-value' };
      ctx.type = Object;
    }
    return ctx.proceed();
  }
}

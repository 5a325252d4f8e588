import { BadRequestError } from '../http/errors.js';
import type { Exchange } from '../internal/exchange.js';
import type { EntityParam } from '../internal/model.js';
import type { ReaderInterceptor } from '../context/contracts.js';
import { readDirect, ReadCtx } from '../internal/readers.js';

/**
 * Reads the entity parameter: reader interceptors (ascending) around the MessageBodyReader chosen
 * by type and request media type (none → 415). Answers the reader's value, `undefined` for no
 * body; the caller's continuation passes it through {@link entityValue}, which applies the
 * empty-body policy (docs/decisions.md 6).
 */
export function readEntity(ex: Exchange, param: EntityParam, interceptors: readonly ReaderInterceptor[]): Promise<unknown> {
  // The reader's own promise, with no `then` of ours on it: the lifecycle's continuation is the
  // one reaction from the body's end to the method (issue 27's profile). Throws still reject.
  try {
    // Zero bytes with a declared media type go to the reader: an empty text or byte body is a value;
    // the JSON reader answers `undefined` for it (no body). Without a media type it is no body.
    if (!ex.hasEntity() && (ex.headers['content-length'] === undefined || ex.mediaType === undefined)) {
      return Promise.resolve(undefined);
    }
    if (interceptors.length > 0) return new ReadCtx(ex, param.type, ex.mediaType, interceptors).proceed();
    // No reader interceptor (the usual route): the reader directly, as ReadCtx.proceed() would call it.
    return readDirect(ex, param.type, ex.mediaType);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The entity argument for what {@link readEntity} gave: `undefined` (no body) for an optional entity, else 400. */
export function entityValue(param: EntityParam, value: unknown): unknown {
  if (value !== undefined || param.optional) return value;
  throw new BadRequestError('A request body is required', { code: 'PIPE_BODY_REQUIRED' });
}

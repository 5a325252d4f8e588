import { BadRequestError } from '../http/errors.js';
import type { Exchange } from '../internal/exchange.js';
import type { EntityParam } from '../internal/model.js';
import type { ReaderInterceptor } from '../context/contracts.js';
import { ReadCtx } from '../internal/readers.js';

/**
 * Reads the entity parameter: reader interceptors (ascending) around the MessageBodyReader chosen
 * by type and request media type (none → 415). An absent body gives `undefined` for optional
 * entities and 400 otherwise (our empty-body policy, docs/decisions.md 6).
 */
export async function readEntity(ex: Exchange, param: EntityParam, interceptors: readonly ReaderInterceptor[]): Promise<unknown> {
  // Zero bytes with a declared media type go to the reader: an empty text or byte body is a value;
  // the JSON reader answers `undefined` for it (no body). Without a media type it is no body.
  if (!ex.hasEntity() && (ex.headers['content-length'] === undefined || ex.mediaType === undefined)) return absent(param);
  const ictx = new ReadCtx(ex, param.type, ex.mediaType, interceptors);
  const value = await ictx.proceed();
  if (value === undefined) return absent(param);
  return value;
}

function absent(param: EntityParam): undefined {
  if (param.optional) return undefined;
  throw new BadRequestError('A request body is required', { code: 'PIPE_BODY_REQUIRED' });
}

import { BadRequestError } from '../http/errors.js';
import type { Exchange } from '../internal/exchange.js';
import type { EntityParam } from '../internal/model.js';
import type { ReaderInterceptor } from '../context/contracts.js';
import { readDirectInto, ReadCtx } from '../internal/readers.js';

/**
 * Reads the entity parameter: reader interceptors (ascending) around the MessageBodyReader chosen
 * by type and request media type (none → 415). Answers the reader's value to `onValue`, `undefined`
 * for no body (the continuation passes it through {@link entityValue}, which applies the
 * empty-body policy, docs/decisions.md 6), or the failure to `onError`: exactly one of them, once.
 *
 * Without reader interceptors the JSON reader answers from the body's `end` event, so from the
 * body's end to the resource method there is no promise and no microtask turn (issue 27's
 * profile: about 600 instructions per request). With request scopes (`RequestScope`, e.g. an
 * `AsyncLocalStorage` store) the answer goes through a promise instead: a promise reaction runs in
 * the scope the read began in, a stream's event does not. A context manager that binds the request
 * emitter (OpenTelemetry's HTTP instrumentation does) has its listeners honoured (read-body.ts).
 */
export function readEntityInto(
  ex: Exchange,
  param: EntityParam,
  interceptors: readonly ReaderInterceptor[],
  onValue: (value: unknown) => void,
  onError: (reason: unknown) => void,
): void {
  // Zero bytes with a declared media type go to the reader: an empty text or byte body is a value;
  // the JSON reader answers `undefined` for it (no body). Without a media type it is no body.
  if (!ex.hasEntity() && (ex.headers['content-length'] === undefined || ex.mediaType === undefined)) {
    onValue(undefined);
    return;
  }
  if (interceptors.length > 0) {
    new ReadCtx(ex, param.type, ex.mediaType, interceptors).proceed().then(onValue, onError);
    return;
  }
  if (ex.rt.scopes !== undefined) {
    new Promise<unknown>((resolve, reject) => readDirectInto(ex, param.type, ex.mediaType, resolve, reject)).then(onValue, onError);
    return;
  }
  readDirectInto(ex, param.type, ex.mediaType, onValue, onError);
}

/** The entity argument for what {@link readEntity} gave: `undefined` (no body) for an optional entity, else 400. */
export function entityValue(param: EntityParam, value: unknown): unknown {
  if (value !== undefined || param.optional) return value;
  throw new BadRequestError('A request body is required', { code: 'PIPE_BODY_REQUIRED' });
}

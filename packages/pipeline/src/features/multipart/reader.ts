import type { Readable } from 'node:stream';
import type { MediaType } from '../../core/http/media-type.js';
import type { MessageBodyReader, ReadContext, TypeToken } from '../../core/context/contracts.js';
import { formFields } from '../../core/internal/form-fields.js';
import { responseCompleted } from '../../core/context/http-version.js';
import { clientAborted } from '../../providers/body-errors.js';
import { isSubtypeOf } from '../../providers/type-tokens.js';
import { readForm, Spool, type MultipartForm } from './form.js';
import { resolveLimits, type MultipartLimits } from './limits.js';
import { MultipartBody } from './multipart-body.js';

/** Options of {@link MultipartReader} and `MultipartFeature`. */
export interface MultipartOptions {
  /** Limits of one body; see `DEFAULT_MULTIPART_LIMITS` for the defaults. */
  limits?: Partial<MultipartLimits>;
}

/**
 * Reads `multipart/form-data` request bodies (RFC 7578) with busboy, from the stream the reader
 * interceptors leave (a gzip-encoded body arrives decoded):
 *
 * - for an entity parameter typed {@link MultipartBody}: the parts in order, streamed;
 * - for a method with `@FormParam`s (its own or its `@BeanParam`s'): the whole body is read
 *   before the method runs, keeping what the parameters name (see `readForm`): text values
 *   converted as for a urlencoded form, `EntityPart` parameters kept whole (in memory up to 64
 *   KiB, else in a temporary file removed when the response is complete).
 *
 * The body is held to the reader's limits, not `limits.bodyLimit`. When the response is complete
 * the body is closed (what was not read stays unread: the connection is closed) and temporary
 * files are removed. Register it through `MultipartFeature`.
 *
 * @example
 * new Application({ resources: [Uploads], providers: [new MultipartReader({ limits: { partSize: 1 << 30 } })] });
 */
export class MultipartReader implements MessageBodyReader<MultipartBody | MultipartForm> {
  readonly name = 'MultipartReader';
  readonly consumes: readonly string[] = ['multipart/form-data'];
  readonly limits: Readonly<MultipartLimits>;

  constructor(options: MultipartOptions = {}) {
    this.limits = resolveLimits(options.limits, 'MultipartReader');
  }

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return mediaType?.essence === 'multipart/form-data' && (isSubtypeOf(type, MultipartBody) || isSubtypeOf(type, URLSearchParams));
  }

  readFrom(type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): MultipartBody | Promise<MultipartForm> {
    const body = new MultipartBody(input, mediaType!, ctx.contentLength, this.limits);
    const spool = new Spool();
    const res = ctx.request.rawResponse;
    const done = (): void => {
      body.close(responseCompleted(ctx.request.raw, res) ? undefined : clientAborted());
      spool.dispose();
    };
    if (res.destroyed) done();
    else res.once('close', done);
    if (isSubtypeOf(type, MultipartBody)) return body;
    return readForm(body, formFields(ctx.request.resourceInfo), spool);
  }
}

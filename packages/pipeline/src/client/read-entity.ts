/**
 * Reading a response entity on the client: reader interceptors (ascending) around the
 * MessageBodyReader chosen by the asked type and the response's media type, exactly as the server
 * chooses readers for request bodies (src/core/internal/readers.ts, provider-choice.ts), with the
 * choice cached per client. Readers get the client's `maxResponseBytes` as their limit.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { MessageBodyReader, ReadContext, TypeToken } from '../core/context/contracts.js';
import type { MediaType } from '../core/http/media-type.js';
import { mediaTypeKey } from '../core/internal/provider-cache.js';
import { chooseProvider } from '../core/internal/provider-choice.js';
import { typeName } from '../core/util/type-name.js';
import { responseTooLarge } from './body-providers.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import { clientErrorIn, transportFailure } from './failures.js';
import type { ClientReaderInterceptor, ClientReaderInterceptorContext } from './contracts.js';
import type { ClientProviders } from './registry.js';
import type { ClientRequestContext } from './request-context.js';
import type { ClientResponse } from './response.js';

/** The reader for `type` as `mediaType`, or an unreadable-response error. */
export function selectReader(providers: ClientProviders, type: TypeToken, mediaType: MediaType | undefined): MessageBodyReader {
  const key = mediaTypeKey(mediaType);
  const hit = providers.readerChoices.get(type, key);
  if (hit !== undefined) return hit;
  const chosen = chooseProvider(
    providers.readers,
    (r) => r.isReadable(type, mediaType),
    (r) => r.consumes,
    mediaType,
    providers.builtin,
  );
  if (chosen === undefined) {
    throw new ClientProcessingError(
      ClientErrorCode.ResponseUnreadable,
      `No MessageBodyReader for ${typeName(type)} as ${mediaType?.essence ?? 'a response without Content-Type'}: register one on the client`,
    );
  }
  providers.readerChoices.set(type, key, chosen);
  return chosen;
}

/**
 * What readers get on the client. `request` is the server's request context on the server; here
 * there is none, so reading it fails with an explanation instead of handing out something else.
 */
class ClientReadContext implements ReadContext {
  constructor(
    readonly headers: IncomingHttpHeaders,
    readonly limit: number,
    readonly contentLength: number | undefined,
  ) {}

  get request(): ContainerRequestContext {
    throw new TypeError(
      'ReadContext.request is the server request; a reader registered on a client reads a response and has none (use headers, limit, contentLength)',
    );
  }
}

/** Runs the reader interceptors and the reader over `input`. */
export class ClientReadCtx implements ClientReaderInterceptorContext {
  readonly headers: IncomingHttpHeaders;
  private i = 0;
  private readonly raw: Readable;

  constructor(
    readonly request: ClientRequestContext,
    readonly response: ClientResponse,
    public type: TypeToken,
    public mediaType: MediaType | undefined,
    public input: Readable,
    public limit: number,
    private readonly chain: readonly ClientReaderInterceptor[],
    private readonly providers: ClientProviders,
    private readonly length: number | undefined,
  ) {
    this.raw = input;
    // Decoders drop Content-Encoding / Content-Length: they get a copy of the headers.
    this.headers = chain.length === 0 ? response.headers : { ...response.headers };
  }

  proceed(): Promise<unknown> {
    const interceptor = this.chain[this.i++];
    if (interceptor !== undefined) return Promise.resolve(interceptor.aroundReadFrom(this));
    const reader = selectReader(this.providers, this.type, this.mediaType);
    // The declared length describes the input only while it is still the raw body.
    const length = this.input === this.raw ? this.length : undefined;
    return Promise.resolve(reader.readFrom(this.type, this.mediaType, this.input, new ClientReadContext(this.headers, this.limit, length)));
  }

  getProperty(name: string): unknown {
    return this.request.getProperty(name);
  }
  setProperty(name: string, value: unknown): void {
    this.request.setProperty(name, value);
  }
}

/**
 * A failure while reading as a client error: the server readers' 413 is `CLIENT_RESPONSE_TOO_LARGE`,
 * a broken or timed-out stream a transport failure, anything else (bad JSON, bad charset, no
 * reader) `CLIENT_RESPONSE_UNREADABLE` with the reader's error as `cause`.
 */
export function readFailure(err: unknown, type: TypeToken, limit: number): Error {
  const known = clientErrorIn(err);
  if (known !== undefined) return known;
  const code = (err as { code?: unknown } | null)?.code;
  const status = (err as { status?: unknown } | null)?.status;
  if (code === 'PIPE_BODY_TOO_LARGE' || status === 413) return responseTooLarge(limit, err);
  if (code === 'PIPE_CLIENT_ABORTED' || code === 'PIPE_BODY_READ_FAILED' || code === 'PIPE_BODY_LENGTH_MISMATCH') {
    const cause = (err as { cause?: unknown }).cause;
    if (cause !== undefined) return transportFailure(cause, undefined);
    return new ClientProcessingError(ClientErrorCode.ConnectionFailed, 'The response body ended early', { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ClientProcessingError(ClientErrorCode.ResponseUnreadable, `The response could not be read as ${typeName(type)}: ${message}`, {
    cause: err,
  });
}

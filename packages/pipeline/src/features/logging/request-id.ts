import { randomBytes } from 'node:crypto';
import { Buffer } from 'node:buffer';
import type {
  ContainerResponseContext,
  ContainerResponseFilter,
  Feature,
  FeatureContext,
  RequestListener,
} from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { REQUEST_ID_PROPERTY } from '../../core/internal/observation.js';

/** Options of {@link RequestIdFeature}. */
export interface RequestIdOptions {
  /** The request and response header carrying the id. Default `'x-request-id'`. */
  header?: string;
  /**
   * Makes an id when the request brings none (or a bad one). Default: UUIDs of RFC 9562's version 8
   * (`xxxxxxxx-xxxx-8xxx-yxxx-xxxxxxxxxxxx`), random per feature and then counted (see the README,
   * "Request ids"); give `crypto.randomUUID` for fully random ones.
   */
  generate?: () => string;
}

/**
 * What an incoming id may be: 1 to 128 of `A-Z a-z 0-9 . _ : -`. That covers UUIDs, ULIDs,
 * W3C trace ids and the usual `prefix-1234` forms, while keeping out what would let a client
 * forge a log line or split a header: spaces, quotes, backslashes, control characters (a raw id is
 * written into JSON logs and echoed in a response header, RFC 9110 §5.5), and lengths that bloat
 * every line.
 */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id (set by {@link RequestIdFeature}), or undefined when the feature is not registered. */
export function requestId(ctx: ContainerRequestContext): string | undefined {
  return ctx.getProperty(REQUEST_ID_PROPERTY) as string | undefined;
}

/**
 * Gives every request an id: the client's `X-Request-Id` (or the configured header) when it is a
 * safe token (see the README, "Request ids"), else a new one, never the raw bad value. The id is on
 * the request context (`requestId(ctx)`), on the request's log lines (`LoggingFeature`), and echoed
 * in every response, errors, 404 and the 503 of a closing application included: it is chosen as the
 * pipeline takes the request, before any filter (a `RequestListener`), and written by a global
 * response filter, which every response the pipeline makes passes through (an entry in the
 * response's own headers: `ServerResponse.setHeader` would cost every response about 1 us, as Node
 * then merges the head header by header).
 * @example new Application({ resources: [Users], providers: [new RequestIdFeature(), new LoggingFeature()] })
 */
export class RequestIdFeature implements Feature {
  private readonly listener: RequestIdListener;
  private readonly echo: RequestIdEcho;

  constructor(options: RequestIdOptions = {}) {
    const header = options.header ?? 'x-request-id';
    // A token (RFC 9110 §5.6.2): a name Node would refuse in setHeader() fails here, not per request.
    if (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
      throw new TypeError(`RequestIdFeature: header must be a header name like 'x-request-id', got ${String(header)}`);
    }
    const generate = options.generate ?? uuidSequence();
    if (typeof generate !== 'function') throw new TypeError('RequestIdFeature: generate must be a function returning a string id');
    this.listener = new RequestIdListener(header.toLowerCase(), generate);
    this.echo = new RequestIdEcho(header.toLowerCase());
  }

  setup(context: FeatureContext): void {
    // First among the listeners, so the others (logging, tracing) already see the id.
    context.register(this.listener, { priority: REQUEST_ID_PRIORITY });
    context.register(this.echo);
  }
}

/**
 * The default id generator: UUIDs of RFC 9562's version 8 (§5.8, a layout of the implementation's
 * choosing), `xxxxxxxx-xxxx-8xxx-yxxx-cccccccccccc`: 74 bits drawn once from the CSPRNG, then a
 * 48-bit counter from a random start. Unique across processes and restarts as random UUIDs are
 * (two generators collide only if their 74 random bits do), in the format of `crypto.randomUUID`
 * (hex, 36 characters), while an id costs a counter step and one string, not 16 random bytes
 * formatted per request. Ids are not secret and not meant to be unguessable. Internal (exported
 * for its test, which gives the 16 random bytes).
 */
export function uuidSequence(random: Uint8Array = randomBytes(16)): () => string {
  const r = Buffer.from(random.buffer, random.byteOffset, random.byteLength).toString('hex');
  const variant = '89ab'[parseInt(r[15]!, 16) & 3]!;
  const prefix = `${r.slice(0, 8)}-${r.slice(8, 12)}-8${r.slice(12, 15)}-${variant}${r.slice(16, 19)}-`;
  // The counter as two 24-bit halves (small integers): the high half's hex changes every 2^24 ids.
  let low = parseInt(r.slice(19, 25), 16);
  let high = parseInt(r.slice(25, 31), 16) & 0x7fffff;
  let head = prefix + hex6(high);
  return () => {
    if (++low > 0xffffff) {
      low = 0;
      high = (high + 1) & 0xffffff;
      head = prefix + hex6(high);
    }
    return head + hex6(low);
  };
}

/** `n` (0 to 2^24 - 1) as 6 hex digits. */
function hex6(n: number): string {
  return (n + 0x1000000).toString(16).slice(1);
}

/** Lower than any other listener's default priority: the id is there before they run. */
const REQUEST_ID_PRIORITY = -1_000_000;

/** The listener behind {@link RequestIdFeature} (registered by it). */
class RequestIdListener implements RequestListener {
  constructor(
    private readonly header: string,
    private readonly generate: () => string,
  ) {}

  onRequest(ctx: ContainerRequestContext): undefined {
    const given = ctx.raw.headers[this.header];
    ctx.setProperty(REQUEST_ID_PROPERTY, typeof given === 'string' && SAFE_ID.test(given) ? given : this.generate());
    return undefined;
  }
}

/** Writes the id into every response (registered by {@link RequestIdFeature}; global: bound to no name). */
class RequestIdEcho implements ContainerResponseFilter {
  constructor(private readonly header: string) {}

  filterResponse(request: ContainerRequestContext, response: ContainerResponseContext): void {
    const id = request.getProperty(REQUEST_ID_PROPERTY);
    if (typeof id === 'string') response.headers[this.header] = id;
  }
}

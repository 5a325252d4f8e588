/**
 * Client of the optional product catalogue behind `GET /api/products/{id}` (PRODUCT_CATALOG_URL).
 *
 * undici's defaults are 300 s header and body timeouts and no size limit (undici's `Agent`
 * documentation), so a slow or hostile upstream would pin our requests and memory. Every call here has a
 * connect timeout, header and body (idle) timeouts, an overall deadline (the body timeout alone
 * lets a one-byte-per-second trickle run forever) and a byte cap. Failures map to gateway errors:
 * timeout 504, unreachable 503, anything malformed or oversized 502.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { BadGatewayError, BadRequestError, GatewayTimeoutError, ServiceUnavailableError, WebApplicationError } from '@jaxrs-node/pipeline';

/** Strict UTF-8 (a malformed answer is a 502, not replacement characters); stateless, so shared. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A product as this service exposes it: only these fields are copied from the upstream answer. */
export interface Product {
  readonly id: number;
  readonly name: string;
  /** Present only when the upstream sends it; SPEC "Other records" names only id and name. */
  readonly price?: number;
}

/** Options of {@link UpstreamCatalog}. */
export interface UpstreamCatalogOptions {
  /** Time from the call (connect included) to response headers; default 2000 ms. */
  readonly headersTimeoutMs?: number;
  /** Longest pause between body chunks; default 2000 ms. */
  readonly bodyTimeoutMs?: number;
  /** Deadline for the whole call; default headers + body timeouts. */
  readonly totalTimeoutMs?: number;
  /** TCP connect timeout; default 1000 ms. */
  readonly connectTimeoutMs?: number;
  /** Largest accepted response body; default 256 KiB. */
  readonly maxResponseBytes?: number;
  /** Sockets kept to the upstream; default 16. */
  readonly maxConnections?: number;
}

/** Error codes that mean "could not reach the upstream at all" (503, as Envoy answers). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
]);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** First string `code` on the error, its cause chain, or the first error of an AggregateError. */
function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current instanceof AggregateError ? current.errors[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}

type Body = Dispatcher.ResponseData['body'];

/** Drops a body we will not read. Without the listener undici's abort error would be unhandled. */
function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

function badGateway(message: string, cause?: unknown): BadGatewayError {
  return new BadGatewayError(message, { code: 'UPSTREAM_BAD_RESPONSE', cause });
}

/** Copies the known fields of a valid product; undefined for any other shape. */
function toProduct(value: unknown, id: number): Product | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  const { name, price } = fields;
  // A different id means the upstream answered another question; do not pass it on.
  if (fields['id'] !== id) return undefined;
  if (typeof name !== 'string' || name.trim().length === 0) return undefined;
  if (price === undefined) return { id, name };
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return undefined;
  return { id, name, price };
}

/**
 * Reads products from `${baseUrl}/products/{id}` over a dedicated undici Agent.
 * @example
 * const catalog = new UpstreamCatalog('http://catalog.internal:8081');
 * const product = await catalog.get(7); // undefined when the upstream says 404
 */
export class UpstreamCatalog {
  readonly #base: string;
  readonly #agent: Agent;
  readonly #maxBytes: number;
  readonly #totalTimeoutMs: number;
  readonly #headersTimeoutMs: number;

  constructor(baseUrl: string, options: UpstreamCatalogOptions = {}) {
    const url = new URL(baseUrl);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
      throw new TypeError('baseUrl must be an http(s) URL without query or fragment');
    }
    this.#base = url.href.replace(/\/+$/, '');
    const headersTimeout = positive('headersTimeoutMs', options.headersTimeoutMs ?? 2000);
    const bodyTimeout = positive('bodyTimeoutMs', options.bodyTimeoutMs ?? 2000);
    this.#headersTimeoutMs = headersTimeout;
    this.#totalTimeoutMs = positive('totalTimeoutMs', options.totalTimeoutMs ?? headersTimeout + bodyTimeout);
    this.#maxBytes = positive('maxResponseBytes', options.maxResponseBytes ?? 256 * 1024);
    this.#agent = new Agent({
      connect: { timeout: positive('connectTimeoutMs', options.connectTimeoutMs ?? 1000) },
      headersTimeout,
      bodyTimeout,
      // undici 7 enforces this in the HTTP/1 parser; #readBody counts as well, as a second line.
      maxResponseSize: this.#maxBytes,
      connections: positive('maxConnections', options.maxConnections ?? 16),
    });
  }

  /**
   * The product with `id`, or undefined when the upstream answers 404.
   * @throws {GatewayTimeoutError} 504 when the upstream is too slow.
   * @throws {ServiceUnavailableError} 503 when it cannot be reached.
   * @throws {BadGatewayError} 502 for 5xx/unexpected statuses, non-JSON, bad shape or oversized bodies.
   */
  async get(id: number): Promise<Product | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) throw new BadRequestError('Product id must be a positive integer');
    // Our own timers: undici's header/body timeouts run on a 1 s-resolution clock (fast timers
    // in lib/util/timers.js), so a 300 ms setting fires after up to ~1 s. They stay as a backstop.
    const deadline = new AbortController();
    const abort = () => deadline.abort();
    const total = setTimeout(abort, this.#totalTimeoutMs).unref();
    const headers = setTimeout(abort, this.#headersTimeoutMs).unref();
    try {
      const response = await request(`${this.#base}/products/${id}`, {
        dispatcher: this.#agent,
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: deadline.signal,
      });
      clearTimeout(headers);
      return await this.#read(response, id);
    } catch (err) {
      throw this.#mapError(err, deadline.signal.aborted);
    } finally {
      clearTimeout(headers);
      clearTimeout(total);
    }
  }

  /** Closes pooled sockets; call on shutdown. */
  close(): Promise<void> {
    return this.#agent.close();
  }

  async #read(response: Dispatcher.ResponseData, id: number): Promise<Product | undefined> {
    const { statusCode, headers, body } = response;
    if (statusCode !== 200) {
      // Drain a little so the socket can be reused; dump() destroys it past the limit.
      await body.dump({ limit: 16 * 1024 }).catch(() => undefined);
      if (statusCode === 404) return undefined;
      throw badGateway(`Upstream answered ${statusCode}`);
    }
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || !JSON_TYPE.test(contentType)) {
      discard(body);
      throw badGateway('Upstream answer is not JSON');
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#maxBytes) {
      discard(body);
      throw badGateway('Upstream answer too large');
    }
    const raw = await this.#readBody(body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(UTF8.decode(raw));
    } catch (err) {
      throw badGateway('Upstream answer is not valid JSON', err);
    }
    const product = toProduct(parsed, id);
    if (product === undefined) throw badGateway('Upstream answer is not a valid product');
    return product;
  }

  async #readBody(body: Body): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.#maxBytes) {
        discard(body);
        throw badGateway('Upstream answer too large');
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }

  #mapError(err: unknown, deadlinePassed: boolean): WebApplicationError {
    if (err instanceof WebApplicationError) return err;
    const code = errorCode(err);
    if (deadlinePassed || (code !== undefined && TIMEOUT.has(code))) {
      return new GatewayTimeoutError('Upstream timed out', { code: 'UPSTREAM_TIMEOUT', cause: err });
    }
    if (code !== undefined && UNREACHABLE.has(code)) {
      return new ServiceUnavailableError('Upstream unavailable', { code: 'UPSTREAM_UNAVAILABLE', cause: err });
    }
    // Resets, early closes, size-limit hits and anything unknown: the upstream misbehaved.
    return badGateway('Upstream failed', err);
  }
}

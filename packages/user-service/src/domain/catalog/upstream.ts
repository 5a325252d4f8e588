/**
 * Client of the optional product catalogue behind `GET /api/products/{id}` (PRODUCT_CATALOG_URL),
 * a typed client of `@jaxrs-node/pipeline/client` made from {@link CatalogApi}.
 *
 * undici's defaults are 300 s header and body timeouts and no size limit (undici's `Agent`
 * documentation), so a slow or hostile upstream would pin our requests and memory. Every call here has a
 * connect timeout, header and body (idle) timeouts, an overall deadline (the body timeout alone
 * lets a one-byte-per-second trickle run forever) and a byte cap. Failures map to gateway errors,
 * as client providers: any status but 200 through {@link CatalogStatusMapper} (404: no product,
 * others 502), transport failures through {@link CatalogFailureMapper} (timeout 504, unreachable
 * 503, anything malformed or oversized 502); the body is read and checked by {@link ProductReader}.
 */
import type { Readable } from 'node:stream';
import {
  BadGatewayError,
  BadRequestError,
  type ContainerRequestContext,
  GatewayTimeoutError,
  GET,
  type MediaType,
  type MessageBodyReader,
  Path,
  PathParam,
  Produces,
  type ReadContext,
  readBody,
  ServiceUnavailableError,
  type TypeToken,
} from '@jaxrs-node/pipeline';
import {
  Client,
  ClientErrorCode,
  ClientTimeoutError,
  type ClientFailureMapper,
  type ClientProcessingError,
  type ClientResponse,
  type ContractClient,
  type PropagationRule,
  type ResponseExceptionMapper,
  withCallOptions,
} from '@jaxrs-node/pipeline/client';

/** Strict UTF-8 (a malformed answer is a 502, not replacement characters); stateless, so shared. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A product as this service exposes it: only these fields are copied from the upstream answer. */
export interface Product {
  readonly id: number;
  readonly name: string;
  /** Present only when the upstream sends it; `docs/api.md` rule 20 requires only id and name. */
  readonly price?: number;
}

/** The type token {@link ProductReader} reads: a product checked field by field. */
export abstract class CatalogProduct implements Product {
  abstract readonly id: number;
  abstract readonly name: string;
  abstract readonly price?: number;
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
  /**
   * What a call copies from the server request it is made for (`get(id, from)`): header names or
   * functions (the client's `propagate` option); default `traceparent` and `tracestate` (W3C
   * Trace Context §3), so a trace goes on through this service even when it does not trace.
   */
  readonly propagate?: readonly PropagationRule[];
  /** More client providers, e.g. `ClientTracing` (a CLIENT span per call, which writes its own `traceparent`). */
  readonly providers?: readonly object[];
}

/** The W3C Trace Context headers, forwarded as they came when nothing traces here. */
export const TRACE_CONTEXT_HEADERS: readonly PropagationRule[] = ['traceparent', 'tracestate'];

const unused = (): never => {
  throw new Error('CatalogApi is a contract: call it through the client');
};

/** The catalogue's API, as this service calls it. */
@Path('/products')
@Produces('application/json')
export abstract class CatalogApi {
  /** Declared as returning the token (not a Promise), so the client reads it with {@link ProductReader}. */
  @GET('{id}') product(@PathParam('id') _id: number): CatalogProduct {
    return unused();
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

function badGateway(message: string, cause?: unknown): BadGatewayError {
  return new BadGatewayError(message, { code: 'UPSTREAM_BAD_RESPONSE', cause });
}

/** Copies the known fields of a valid product; undefined for any other shape. */
function toProduct(value: unknown): Product | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Record<string, unknown>;
  const { id, name, price } = fields;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return undefined;
  if (typeof name !== 'string' || name.trim().length === 0) return undefined;
  if (price === undefined) return { id, name };
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) return undefined;
  return { id, name, price };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/**
 * Reads a {@link CatalogProduct} from a JSON answer (any `+json` type too): strict UTF-8, at most
 * the client's `maxResponseBytes`, and only the known, valid fields copied (a `__proto__` key in the
 * answer is just an ignored field). Anything else throws, which the client reports as an unreadable
 * response (502 through {@link CatalogFailureMapper}).
 */
export class ProductReader implements MessageBodyReader<Product> {
  readonly consumes = ['application/json'];

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return type === CatalogProduct && mediaType !== undefined && JSON_TYPE.test(mediaType.essence);
  }

  async readFrom(_type: TypeToken, mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<Product> {
    const charset = mediaType?.params.charset?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw new TypeError(`Upstream answer in ${charset}`);
    const text = UTF8.decode(await readBody(input, ctx.limit, ctx.contentLength));
    const product = toProduct(JSON.parse(text));
    if (product === undefined) throw new TypeError('Upstream answer is not a valid product');
    return product;
  }
}

/** The upstream said 404: the product does not exist (not an error of ours to show). */
class NoSuchProduct extends Error {}

/** Every status but 200 is an error: 404 means no product, anything else (redirects included) 502. */
export class CatalogStatusMapper implements ResponseExceptionMapper {
  handles(status: number): boolean {
    return status !== 200;
  }

  toError(response: ClientResponse): Error {
    return response.status === 404 ? new NoSuchProduct() : badGateway(`Upstream answered ${response.status}`);
  }
}

/** Transport failures as gateway errors: timeouts 504, unreachable or closed 503, the rest 502. */
export class CatalogFailureMapper implements ClientFailureMapper {
  mapFailure(error: ClientProcessingError): Error {
    if (error instanceof ClientTimeoutError && error.phase !== 'connect') {
      return new GatewayTimeoutError('Upstream timed out', { code: 'UPSTREAM_TIMEOUT', cause: error });
    }
    if (error instanceof ClientTimeoutError || error.code === ClientErrorCode.Unreachable || error.code === ClientErrorCode.Closed) {
      return new ServiceUnavailableError('Upstream unavailable', { code: 'UPSTREAM_UNAVAILABLE', cause: error });
    }
    // Resets, early closes, size-limit hits, unreadable answers: the upstream misbehaved.
    return badGateway('Upstream failed', error);
  }
}

/**
 * Reads products from `${baseUrl}/products/{id}` over a client with its own pooled undici Agent.
 * @example
 * const catalog = new UpstreamCatalog('http://catalog.internal:8081');
 * const product = await catalog.get(7); // undefined when the upstream says 404
 */
export class UpstreamCatalog {
  readonly #client: Client;
  readonly #api: ContractClient<CatalogApi>;

  constructor(baseUrl: string, options: UpstreamCatalogOptions = {}) {
    const url = new URL(baseUrl);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
      throw new TypeError('baseUrl must be an http(s) URL without query or fragment');
    }
    const headersTimeout = positive('headersTimeoutMs', options.headersTimeoutMs ?? 2000);
    const bodyTimeout = positive('bodyTimeoutMs', options.bodyTimeoutMs ?? 2000);
    this.#client = new Client({
      baseUrl: url.href,
      connectTimeout: positive('connectTimeoutMs', options.connectTimeoutMs ?? 1000),
      headersTimeout,
      bodyTimeout,
      deadline: positive('totalTimeoutMs', options.totalTimeoutMs ?? headersTimeout + bodyTimeout),
      maxResponseBytes: positive('maxResponseBytes', options.maxResponseBytes ?? 256 * 1024),
      connections: positive('maxConnections', options.maxConnections ?? 16),
      propagate: options.propagate ?? TRACE_CONTEXT_HEADERS,
      providers: [new ProductReader(), new CatalogStatusMapper(), new CatalogFailureMapper(), ...(options.providers ?? [])],
    });
    this.#api = this.#client.proxy(CatalogApi);
  }

  /**
   * The product with `id`, or undefined when the upstream answers 404; `from`, the server request
   * the call is made for, gives the headers the `propagate` option names.
   * @throws {GatewayTimeoutError} 504 when the upstream is too slow.
   * @throws {ServiceUnavailableError} 503 when it cannot be reached.
   * @throws {BadGatewayError} 502 for 5xx/unexpected statuses, non-JSON, bad shape or oversized bodies.
   */
  async get(id: number, from?: ContainerRequestContext): Promise<Product | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) throw new BadRequestError('Product id must be a positive integer');
    let product: Product;
    try {
      product = await (from === undefined ? this.#api : withCallOptions(this.#api, { request: from })).product(id);
    } catch (err) {
      if (err instanceof NoSuchProduct) return undefined;
      throw err;
    }
    // A different id means the upstream answered another question; do not pass it on.
    if (product.id !== id) throw badGateway('Upstream answer is not a valid product');
    return product;
  }

  /** Closes pooled sockets; call on shutdown. */
  close(): Promise<void> {
    return this.#client.close();
  }
}

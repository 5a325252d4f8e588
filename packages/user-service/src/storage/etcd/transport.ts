/**
 * HTTP transport of the etcd client: POSTs JSON to the gateway over one pooled undici Agent,
 * fails over between endpoints and bounds every attempt in time and every answer in size.
 *
 * Failover: a call starts at the endpoint that last answered; a retriable failure (connection
 * refused or reset, attempt timeout, 5xx or 429) moves it to the next endpoint; after each full
 * round it pauses (50 ms, doubling up to 1 s) and goes round again until the call's deadline.
 * A retried write may have been applied by the attempt that timed out (etcd's own clients have the
 * same ambiguity): make writes conditional (txn on mod_revision) when that matters.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { MalformedAnswer, object } from './codec.js';
import { EtcdError, gatewayError } from './errors.js';

/** Limits of {@link EtcdTransport}; all required here, defaults live in the client. */
export interface TransportLimits {
  readonly requestTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxResponseBytes: number;
  /** Told of every attempt of a call (one HTTP round trip): its path, seconds, and error code if it failed. */
  readonly onRoundTrip?: ((path: string, seconds: number, error: string | undefined) => void) | undefined;
}

/** Largest error body read from a non-2xx answer. */
const MAX_ERROR_BODY = 64 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** undici's codes for a dispatcher closed by {@link EtcdTransport.close}: no endpoint will do better. */
const CLOSED_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

type Body = Dispatcher.ResponseData['body'];

/**
 * Reads a whole body as UTF-8, failing with `RESPONSE_TOO_LARGE` past `max` bytes.
 * @example
 * const text = await readBounded(response.body, 1 << 20, endpoint);
 */
export async function readBounded(body: Body, max: number, endpoint: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new EtcdError('RESPONSE_TOO_LARGE', `answer larger than ${max} bytes`, { endpoint, retriable: false });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One attempt's view: where it goes, and the signal that ends it (caller abort or attempt timeout). */
interface Attempt {
  readonly endpoint: string;
  readonly signal: AbortSignal;
}

/**
 * Failover POSTs of JSON to etcd's gateway.
 * @example
 * const transport = new EtcdTransport(['http://127.0.0.1:2379'], limits);
 * const status = await transport.call('/v3/maintenance/status', {}, (answer) => answer, undefined, 5000);
 */
export class EtcdTransport {
  readonly #endpoints: readonly string[];
  readonly #limits: TransportLimits;
  readonly #agent: Agent;
  #preferred = 0;

  constructor(endpoints: readonly string[], limits: TransportLimits) {
    this.#endpoints = endpoints;
    this.#limits = limits;
    this.#agent = new Agent({ connect: { timeout: limits.connectTimeoutMs }, keepAliveTimeout: 10_000 });
  }

  /**
   * POSTs `body` to `path` and returns the 200 answer through `decode` (which throws
   * {@link MalformedAnswer} for a wrong shape), with failover.
   */
  call<T>(
    path: string,
    body: unknown,
    decode: (answer: Record<string, unknown>, endpoint: string) => T,
    signal: AbortSignal | undefined,
    deadlineMs: number,
  ): Promise<T> {
    const payload = JSON.stringify(body);
    const observe = this.#limits.onRoundTrip;
    return this.#withFailover(signal, deadlineMs, true, async (attempt) => {
      if (observe === undefined) return this.#roundTrip(path, payload, decode, attempt);
      const start = performance.now();
      try {
        const result = await this.#roundTrip(path, payload, decode, attempt);
        tell(observe, path, start, undefined);
        return result;
      } catch (err) {
        // The attempt's own signal ends it at its timeout: classify() sees that as TIMEOUT.
        const timedOut = attempt.signal.aborted && signal?.aborted !== true ? attempt.signal : undefined;
        tell(observe, path, start, classify(err, attempt.endpoint, signal, timedOut).code);
        throw err;
      }
    });
  }

  /** One attempt of {@link call}: the POST, its whole answer read and decoded. */
  async #roundTrip<T>(
    path: string,
    payload: string,
    decode: (answer: Record<string, unknown>, endpoint: string) => T,
    { endpoint, signal: attemptSignal }: Attempt,
  ): Promise<T> {
    const response = await this.#post(endpoint, path, payload, attemptSignal, this.#limits.requestTimeoutMs);
    const text = await readBounded(response.body, this.#limits.maxResponseBytes, endpoint);
    let answer: Record<string, unknown>;
    try {
      answer = object(JSON.parse(text), `answer of ${path}`);
    } catch (err) {
      throw new EtcdError('BAD_RESPONSE', `unreadable answer of ${path}`, { endpoint, retriable: false, cause: err });
    }
    return decode(answer, endpoint);
  }

  /**
   * POSTs `body` to a streaming `path` and returns the open 200 body, with failover until the
   * headers arrive; the stream itself has no body timeout and ends with `signal`.
   */
  open(path: string, body: unknown, signal: AbortSignal, deadlineMs: number): Promise<{ endpoint: string; body: Body }> {
    const payload = JSON.stringify(body);
    return this.#withFailover(signal, deadlineMs, false, async ({ endpoint }) => {
      const response = await this.#post(endpoint, path, payload, signal, 0);
      return { endpoint, body: response.body };
    });
  }

  /** Closes pooled sockets; streams must be ended (their signals aborted) first. */
  close(): Promise<void> {
    return this.#agent.close();
  }

  async #post(endpoint: string, path: string, payload: string, signal: AbortSignal, bodyTimeout: number): Promise<Dispatcher.ResponseData> {
    const response = await request(new URL(path, endpoint), {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json' },
      dispatcher: this.#agent,
      signal,
      headersTimeout: this.#limits.requestTimeoutMs,
      bodyTimeout,
    });
    if (response.statusCode === 200) return response;
    const text = await readBounded(response.body, MAX_ERROR_BODY, endpoint).catch(() => '');
    throw gatewayError(endpoint, response.statusCode, text);
  }

  /**
   * Runs `attempt` on the endpoints in turn until one succeeds, a failure is not retriable, the
   * deadline passes or `signal` aborts. `timed` gives each attempt its own timeout signal.
   */
  async #withFailover<T>(
    signal: AbortSignal | undefined,
    deadlineMs: number,
    timed: boolean,
    attempt: (a: Attempt) => Promise<T>,
  ): Promise<T> {
    const { requestTimeoutMs } = this.#limits;
    const count = this.#endpoints.length;
    const start = this.#preferred;
    const deadline = performance.now() + deadlineMs;
    let last: EtcdError | undefined;
    for (let i = 0; ; i++) {
      const index = (start + i) % count;
      const endpoint = this.#endpoints[index]!;
      const remaining = Math.ceil(deadline - performance.now());
      if (remaining <= 0) throw last ?? new EtcdError('TIMEOUT', `no answer within ${deadlineMs} ms`, { endpoint, retriable: true });
      const timeout = timed ? AbortSignal.timeout(Math.min(requestTimeoutMs, remaining)) : undefined;
      const signals = [signal, timeout].filter((s): s is AbortSignal => s !== undefined);
      try {
        const result = await attempt({ endpoint, signal: AbortSignal.any(signals) });
        this.#preferred = index;
        return result;
      } catch (err) {
        last = classify(err, endpoint, signal, timeout);
        if (!last.retriable) throw last;
      }
      if ((i + 1) % count === 0) {
        const pause = Math.min(1000, 50 * 2 ** Math.min(5, (i + 1) / count - 1), Math.max(0, deadline - performance.now()));
        try {
          await delay(pause, undefined, { signal });
        } catch (err) {
          throw classify(err, endpoint, signal, undefined);
        }
      }
    }
  }
}

/** Tells the round-trip observer; one that throws is ignored (metrics must not fail a call). */
function tell(
  observe: (path: string, seconds: number, error: string | undefined) => void,
  path: string,
  start: number,
  error: string | undefined,
): void {
  try {
    observe(path, (performance.now() - start) / 1000, error);
  } catch {
    // ignored: see above
  }
}

/** Any failure of an attempt as an {@link EtcdError}. */
function classify(err: unknown, endpoint: string, caller: AbortSignal | undefined, timeout: AbortSignal | undefined): EtcdError {
  if (caller?.aborted) return new EtcdError('ABORTED_BY_CALLER', 'call aborted', { endpoint, retriable: false, cause: caller.reason });
  if (err instanceof EtcdError) return err;
  if (err instanceof MalformedAnswer) return new EtcdError('BAD_RESPONSE', err.message, { endpoint, retriable: false, cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CLOSED_CODES.has(code)) {
    return new EtcdError('CONNECTION', 'client closed', { endpoint, retriable: false, cause: err });
  }
  if (timeout?.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return new EtcdError('TIMEOUT', 'attempt timed out', { endpoint, retriable: true, cause: err });
  }
  return new EtcdError('CONNECTION', `connection failed: ${err instanceof Error ? err.message : String(err)}`, {
    endpoint,
    retriable: true,
    cause: err,
  });
}

/**
 * One call, start to end (Jakarta REST 3.1 §6.7 on the client side): propagated headers, request
 * filters (ascending; `abortWith` skips the transport), writer interceptors and writer, the
 * transport with the call's timeouts and retries, response filters (descending), and then whatever
 * the caller does with the response (read the entity, map an error status) while the call's
 * deadline and signal still apply. Failures without a response go through the failure mappers.
 */
import type { TypeToken } from '../core/context/contracts.js';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import type { ResourceInfo } from '../core/context/resource-info.js';
import { isThenable } from '../core/util/thenable.js';
import { ambientRequest } from '../core/internal/observation.js';
import { clientChannels } from './diagnostics.js';
import { ClientErrorCode, ClientProcessingError, ClientTimeoutError } from './errors.js';
import { transportFailure } from './failures.js';
import type { CallOptions, ClientPolicy, PropagationRule } from './options.js';
import { readFailure } from './read-entity.js';
import type { ClientChains, ClientProviders } from './registry.js';
import { ClientRequestContext, type ClientHeaders } from './request-context.js';
import { ClientResponse, discard, type ResponseRuntime } from './response.js';
import { backoffMs, repeatable, retryableFailure, retryAfterMs } from './retry.js';
import { AttemptSignal, type Transport, type TransportRequest, type TransportResponse } from './transport.js';
import { writeEntity } from './write-entity.js';

/** What every call of a client shares. */
export interface ClientCore {
  readonly providers: ClientProviders;
  readonly transport: Transport;
  readonly policy: ClientPolicy;
  readonly propagate: readonly PropagationRule[];
  readonly closed: boolean;
}

/** One call to make. `headers` becomes the request's own object. */
export interface CallInput {
  readonly method: string;
  readonly uri: string;
  readonly headers: ClientHeaders;
  readonly entity: unknown;
  readonly entityType: TypeToken | undefined;
  readonly resourceInfo: ResourceInfo | undefined;
  readonly chains: ClientChains;
  readonly options: CallOptions | undefined;
  /** The server request named by a contract method's `@Context()` argument (wins over `options.request`). */
  readonly propagateFrom?: ContainerRequestContext | undefined;
  /** The caller's signal from a contract method's `@Context()` argument (wins over `options.signal`). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Makes the call and hands the response to `finish`, whose result the promise resolves with. The
 * deadline and the caller's signal cover `finish` too (reading the entity); a response returned
 * unread keeps the caller's signal until its body is read or dropped.
 */
export async function call<T>(core: ClientCore, input: CallInput, finish: (response: ClientResponse) => T | Promise<T>): Promise<T> {
  const c = new Call(core, input);
  if (clientChannels.start.hasSubscribers) clientChannels.start.publish({ request: c.request });
  let response: ClientResponse | undefined;
  let error: unknown;
  try {
    response = await c.exchange(core);
    return await finish(response);
  } catch (e) {
    error = c.failure(e);
    // Nobody will read the body of a call that failed (a filter or a mapper threw): release it.
    response?.close();
    throw error;
  } finally {
    c.end(error === undefined ? response : undefined);
    if (clientChannels.finish.hasSubscribers) {
      clientChannels.finish.publish({
        request: c.request,
        status: error === undefined ? response?.status : undefined,
        durationMs: c.started < 0 ? undefined : performance.now() - c.started,
        error,
        attempts: c.attempts,
      });
    }
  }
}

/** Aborts an attempt at its headers timeout (a `setTimeout` callback without a closure). */
function headersTimedOut(signal: AttemptSignal, ms: number): void {
  signal.abort(new ClientTimeoutError('headers', ms));
}

/** Is `reason` the error, or in its `cause` chain (readers and undici wrap it)? */
function causedBy(err: unknown, reason: unknown): boolean {
  let current = err;
  for (let depth = 0; depth < 4; depth++) {
    if (current === reason) return true;
    if (typeof current !== 'object' || current === null) return false;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The state of one call; also what its response reads the entity with. */
class Call implements ResponseRuntime {
  readonly request: ClientRequestContext;
  readonly providers: ClientProviders;
  readonly chains: ClientChains;
  readonly limit: number;
  /** `performance.now()` at the start, or -1 when nobody listens for the duration. */
  readonly started: number;
  attempts: number;
  private aborted: boolean;
  private reason: unknown;
  /** The abort came from the caller's signal: its reason is thrown as is, never mapped. */
  private byCaller: boolean;
  private ended: boolean;
  private attempt: AttemptSignal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly signal: AbortSignal | undefined;
  private onCallerAbort: (() => void) | undefined;
  private wake: ((reason: unknown) => void) | undefined;

  constructor(core: ClientCore, input: CallInput) {
    const options = input.options;
    this.request = new ClientRequestContext(
      input.method,
      input.uri,
      input.headers,
      input.entity,
      input.entityType,
      input.resourceInfo,
      // Without an explicit request, the current one when RequestContextFeature is on.
      input.propagateFrom ?? options?.request ?? ambientRequest(),
    );
    this.providers = core.providers;
    this.chains = input.chains;
    this.limit = options?.maxResponseBytes ?? core.policy.maxResponseBytes;
    this.started = clientChannels.finish.hasSubscribers ? performance.now() : -1;
    this.attempts = 0;
    this.aborted = false;
    this.reason = undefined;
    this.byCaller = false;
    this.ended = false;
    this.attempt = undefined;
    this.timer = undefined;
    this.wake = undefined;
    this.onCallerAbort = undefined;
    const signal = input.signal ?? options?.signal;
    this.signal = signal;
    if (signal !== undefined) {
      if (signal.aborted) this.abort(signal.reason, true);
      else {
        this.onCallerAbort = () => this.abort(signal.reason, true);
        signal.addEventListener('abort', this.onCallerAbort, { once: true });
      }
    }
    const deadline = options?.deadline ?? core.policy.deadline;
    if (deadline !== undefined && !this.aborted) {
      this.timer = setTimeout(() => this.abort(new ClientTimeoutError('deadline', deadline), false), deadline);
    }
  }

  /** Filters, entity, transport, response filters. */
  async exchange(core: ClientCore): Promise<ClientResponse> {
    if (this.aborted) throw this.reason;
    if (core.closed) throw new ClientProcessingError(ClientErrorCode.Closed, 'The client is closed: calls need a client that is not');
    const req = this.request;
    if (req.propagatedFrom !== undefined && core.propagate.length > 0) propagate(core.propagate, req.propagatedFrom, req.headers);
    for (const filter of this.chains.requestFilters) {
      const r = filter.filterClientRequest(req);
      if (r !== undefined && isThenable(r)) await r;
      if (req.abortResponse !== undefined) break;
    }
    const response =
      req.abortResponse !== undefined
        ? ClientResponse.fromAbort(this, req, req.abortResponse)
        : await this.send(core, await writeEntity(this.providers, this.chains, req));
    try {
      for (const filter of this.chains.responseFilters) {
        const r = filter.filterClientResponse(req, response);
        if (r !== undefined && isThenable(r)) await r;
      }
    } catch (e) {
      response.close();
      throw e;
    }
    return response;
  }

  /** The transport, with retries where the policy and the request allow them. */
  private async send(core: ClientCore, body: TransportRequest['body']): Promise<ClientResponse> {
    const req = this.request;
    const retry = core.policy.retry;
    const retries = retry !== undefined && repeatable(req.method, req.headers, body) ? retry.maxRetries : 0;
    for (let n = 0; ; n++) {
      let res: TransportResponse;
      try {
        res = await this.dispatch(core, body);
      } catch (e) {
        const err = this.aborted && causedBy(e, this.reason) ? this.reason : transportFailure(e, core.policy);
        if (n < retries && !this.aborted && retryableFailure(err)) {
          await this.pause(n + 2, backoffMs(retry!, n), undefined, err);
          continue;
        }
        throw err;
      }
      if (n < retries && retry!.statuses.has(res.status)) {
        const delay = retryAfterMs(res.headers) ?? backoffMs(retry!, n);
        if (delay <= retry!.maxDelay) {
          if (res.body !== undefined) discard(res.body);
          await this.pause(n + 2, delay, res.status, undefined);
          continue;
        }
      }
      const noBody = req.method === 'HEAD' || res.status === 204 || res.status === 304 || res.status < 200;
      if (noBody && res.body !== undefined) discard(res.body);
      return new ClientResponse(this, req, res.status, res.headers, noBody ? undefined : res.body);
    }
  }

  /** One attempt: the transport, cut at the headers timeout or when the call aborts. */
  private async dispatch(core: ClientCore, body: TransportRequest['body']): Promise<TransportResponse> {
    this.attempts++;
    const signal = new AttemptSignal();
    if (this.aborted) signal.abort(this.reason);
    this.attempt = signal;
    const ms = core.policy.headersTimeout;
    const timer = setTimeout(headersTimedOut, ms, signal, ms);
    const req = this.request;
    try {
      return await core.transport.dispatch({ method: req.method, uri: req.uri, headers: req.headers, body, signal });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits before retry `attempt`; an abort ends the wait with its reason. */
  private pause(attempt: number, delayMs: number, status: number | undefined, error: unknown): Promise<void> {
    if (clientChannels.retry.hasSubscribers) clientChannels.retry.publish({ request: this.request, attempt, delayMs, status, error });
    return new Promise<void>((resolve, reject) => {
      if (this.aborted) {
        reject(this.reason as Error);
        return;
      }
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, delayMs);
      this.wake = (reason) => {
        clearTimeout(timer);
        reject(reason as Error);
      };
    });
  }

  private abort(reason: unknown, byCaller: boolean): void {
    if (this.aborted || this.ended) return;
    this.aborted = true;
    this.reason = reason;
    this.byCaller = byCaller;
    this.attempt?.abort(reason);
    this.wake?.(reason);
  }

  /** The error the call rejects with: the abort reason as is, a client error through the failure mappers. */
  failure(e: unknown): unknown {
    const err = this.aborted && causedBy(e, this.reason) ? this.reason : e;
    if (this.aborted && this.byCaller && err === this.reason) return err;
    return err instanceof ClientProcessingError ? mapFailure(this.chains, err, this.request) : err;
  }

  /** A reading failure: during the call mapped once at its end, after it (a response read later) now. */
  fail(e: unknown, type: TypeToken): Error {
    if (this.aborted && causedBy(e, this.reason)) return this.reason as Error;
    const err = readFailure(e, type, this.limit);
    return this.ended && err instanceof ClientProcessingError ? mapFailure(this.chains, err, this.request) : err;
  }

  /** Stops the timers; the caller's signal stays attached while a returned body is unread. */
  end(returned: ClientResponse | undefined): void {
    this.ended = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const signal = this.signal;
    const listener = this.onCallerAbort;
    if (signal === undefined || listener === undefined) return;
    const stream = returned?.entityStream;
    if (stream === undefined || stream.destroyed || stream.readableEnded) {
      signal.removeEventListener('abort', listener);
      return;
    }
    // The attempt's signal is the body's: a caller abort still destroys the body being streamed.
    const attempt = this.attempt;
    const late = (): void => attempt?.abort(signal.reason);
    signal.removeEventListener('abort', listener);
    signal.addEventListener('abort', late, { once: true });
    stream.once('close', () => signal.removeEventListener('abort', late));
  }
}

/** Asks the failure mappers (ascending priority); the first error returned wins. */
function mapFailure(chains: ClientChains, error: ClientProcessingError, request: ClientRequestContext): Error {
  for (const m of chains.failureMappers) {
    const mapped = m.mapFailure(error, request);
    if (mapped !== undefined && mapped !== null) return mapped;
  }
  return error;
}

/** Copies the propagated headers from the server request (a request's own value wins). */
function propagate(rules: readonly PropagationRule[], from: ContainerRequestContext, headers: ClientHeaders): void {
  for (const rule of rules) {
    if (typeof rule === 'string') {
      if (headers[rule] !== undefined) continue;
      const v = from.getHeader(rule);
      if (v !== undefined) headers[rule] = v;
      continue;
    }
    const extra = rule(from);
    if (extra === undefined) continue;
    for (const [name, value] of Object.entries(extra)) {
      const key = name.toLowerCase();
      if (value !== undefined && headers[key] === undefined) headers[key] = value;
    }
  }
}

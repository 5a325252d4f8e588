/**
 * When a failed attempt is sent again. Only requests that are safe to repeat (RFC 9110 §9.2.2:
 * idempotent methods; or any method with an `Idempotency-Key` header, draft-ietf-httpapi-idempotency-key-header)
 * with a body that can be sent twice (none, text or bytes: never a stream), after a failure that
 * left no response (unreachable, connect or headers timeout, reset) or a status of `statuses`.
 * The wait is the response's `Retry-After` (RFC 9110 §10.2.3) when it has one, else exponential
 * backoff with full jitter; a wait longer than `maxDelay` ends the retries instead.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Body } from '../core/context/contracts.js';
import { ClientErrorCode, ClientProcessingError } from './errors.js';
import type { ClientHeaders } from './request-context.js';

/** Retry settings of a client (`retry` option). @example new Client({ baseUrl, retry: { maxRetries: 3, baseDelay: 50, maxDelay: 1_000 } }) */
export interface RetryOptions {
  /** Retries after the first attempt; default 2. */
  readonly maxRetries?: number;
  /** First backoff step in ms (doubled per retry, full jitter); default 100. */
  readonly baseDelay?: number;
  /** Longest wait in ms, backoff or `Retry-After`; a longer `Retry-After` is not waited for. Default 2000. */
  readonly maxDelay?: number;
  /** Statuses that are retried; default 429, 502, 503, 504. */
  readonly statuses?: readonly number[];
}

/** {@link RetryOptions} with every default applied and checked. */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelay: number;
  readonly maxDelay: number;
  readonly statuses: ReadonlySet<number>;
}

/** Validates the option; names the field and the fix. */
export function retryPolicy(options: RetryOptions | undefined): RetryPolicy | undefined {
  if (options === undefined) return undefined;
  const int = (name: string, v: number | undefined, dflt: number): number => {
    const value = v ?? dflt;
    if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`retry.${name} must be a non-negative integer, got ${String(v)}`);
    return value;
  };
  const maxRetries = int('maxRetries', options.maxRetries, 2);
  const baseDelay = int('baseDelay', options.baseDelay, 100);
  const maxDelay = int('maxDelay', options.maxDelay, 2000);
  if (maxDelay < baseDelay) throw new TypeError(`retry.maxDelay (${maxDelay}) must be at least retry.baseDelay (${baseDelay})`);
  const statuses = options.statuses ?? [429, 502, 503, 504];
  for (const s of statuses) {
    if (!Number.isInteger(s) || s < 100 || s > 599) throw new TypeError(`retry.statuses: ${String(s)} is not an HTTP status`);
  }
  return maxRetries === 0 ? undefined : { maxRetries, baseDelay, maxDelay, statuses: new Set(statuses) };
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** May this request be sent more than once? */
export function repeatable(method: string, headers: ClientHeaders, body: Body | AsyncIterable<unknown> | undefined): boolean {
  if (!(body === undefined || typeof body === 'string' || body instanceof Uint8Array)) return false;
  return IDEMPOTENT.has(method) || headers['idempotency-key'] !== undefined;
}

const RETRYABLE_CODES = new Set<string>([
  ClientErrorCode.Unreachable,
  ClientErrorCode.ConnectTimeout,
  ClientErrorCode.HeadersTimeout,
  ClientErrorCode.ConnectionFailed,
]);

/** A failure that left no response and may go away on another attempt. */
export function retryableFailure(err: unknown): boolean {
  return err instanceof ClientProcessingError && RETRYABLE_CODES.has(err.code);
}

/** `Retry-After` in ms (delay-seconds or an HTTP-date, RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Backoff before retry number `retry` (0-based): a random wait up to `baseDelay * 2^retry`, capped. */
export function backoffMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelay, policy.baseDelay * 2 ** retry);
  return Math.floor(random() * ceiling);
}

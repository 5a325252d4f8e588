import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/**
 * Headers whose values are credentials (RFC 9110 §11.6.2 `Authorization`, `Proxy-Authorization`;
 * RFC 6265 `Cookie`, `Set-Cookie`) or API keys by their usual names: never written to a log.
 */
export const REDACTED_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
]);

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * A copy of `headers` with the values of `names` (lower case) replaced by `[REDACTED]`.
 * @example redactHeaders(ctx.raw.headers) // { authorization: '[REDACTED]', accept: '*\/*' }
 */
export function redactHeaders(
  headers: IncomingHttpHeaders | OutgoingHttpHeaders,
  names: ReadonlySet<string> | readonly string[] = REDACTED_HEADERS,
): Record<string, unknown> {
  const set = names instanceof Set ? names : new Set(names as readonly string[]);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = set.has(name.toLowerCase()) ? REDACTED : value;
  }
  return out;
}

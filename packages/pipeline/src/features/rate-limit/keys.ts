import type { ContainerRequestContext } from '../../core/context/request-context.js';

/**
 * Which client a request counts against: a function of the request, chosen by the application and
 * run after authentication (the feature's filter has `AUTHORIZATION` priority), so it can read
 * `ctx.securityContext`. Return a short string; requests with the same key share a quota.
 */
export type RateLimitKey = (ctx: ContainerRequestContext) => string;

/** The socket's address: `X-Forwarded-For` is never read, since any client can send it (RFC 7239 §8.1). */
function address(ctx: ContainerRequestContext): string {
  return `a:${ctx.remoteAddress ?? 'unknown'}`;
}

/**
 * Ready-made {@link RateLimitKey}s. Each falls back to the socket address, so an anonymous or
 * unauthenticated request is limited too (a key a client chooses freely, such as an unchecked
 * header, would let it open a fresh quota per request).
 * @example
 * new RateLimitFeature({ key: RateLimitKeys.principal, default: { limit: 600, windowMs: 60_000 } });
 */
export const RateLimitKeys = Object.freeze({
  /** The socket's remote address (`a:<address>`); behind a proxy every client shares the proxy's. */
  address,
  /** The authenticated principal's name (`p:<name>`), else the address: the reference server's key. */
  principal(ctx: ContainerRequestContext): string {
    const principal = ctx.securityContext.principal;
    return principal !== undefined ? `p:${principal.name}` : address(ctx);
  },
  /**
   * The API key in `header` (default `x-api-key`) once authentication accepted the request
   * (`securityContext.authenticated`), else the address: an unchecked key is the client's choice.
   */
  apiKey(header = 'x-api-key'): RateLimitKey {
    const name = header.toLowerCase();
    return (ctx) => {
      const value = ctx.securityContext.authenticated ? ctx.getHeader(name) : undefined;
      return value !== undefined && value !== '' ? `k:${value}` : address(ctx);
    };
  },
});

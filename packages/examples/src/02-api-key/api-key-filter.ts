import { createHash, timingSafeEqual } from 'node:crypto';
import {
  Priorities,
  Priority,
  Response,
  SecurityContext,
  type ContainerRequestContext,
  type ContainerRequestFilter,
} from '@jaxrs-node/pipeline';

/** Paths that skip the key check: a health probe carries no credentials. */
const OPEN_PATHS: ReadonlySet<string> = new Set(['/health']);

/**
 * The spec's filter-based API-key check (Authentication rule 5). It runs at AUTHENTICATION
 * priority, so before every USER-priority filter and before the resource method. A missing or
 * wrong `X-API-Key` aborts with 401, `WWW-Authenticate: API-Key` and a JSON error. `abortWith` is
 * not an exception: the method does not run, but response filters (CORS, logging) still do.
 *
 * It is a post-matching filter (the default), so a path no resource matches is a 404 before any
 * key is checked. Add `@PreMatching()` to check keys first if route existence is a secret.
 * The filter holds only immutable configuration: one instance serves concurrent requests.
 * @example
 * new Application({ providers: [new ApiKeyFilter(['k1', 'k2'])] });
 */
@Priority(Priorities.AUTHENTICATION)
export class ApiKeyFilter implements ContainerRequestFilter {
  // Digests, not the keys: comparing fixed-length digests with timingSafeEqual leaks neither
  // a key's length nor how many leading characters matched.
  private readonly digests: readonly Buffer[];

  constructor(keys: Iterable<string>) {
    this.digests = [...keys].map(digest);
    if (this.digests.length === 0) throw new Error('ApiKeyFilter needs at least one key');
  }

  filterRequest(ctx: ContainerRequestContext): void {
    if (OPEN_PATHS.has(ctx.path)) return;
    const key = ctx.getHeader('x-api-key');
    if (key === undefined || key === '') {
      ctx.abortWith(unauthorized('Missing X-API-Key header'));
      return;
    }
    const d = digest(key);
    // No early exit: the time taken does not tell which key (if any) matched.
    let ok = false;
    for (const known of this.digests) ok = timingSafeEqual(d, known) || ok;
    if (!ok) {
      ctx.abortWith(unauthorized('Invalid API key'));
      return;
    }
    // Later filters and resources can ask who called (`@Context() sc: SecurityContext`).
    ctx.securityContext = SecurityContext.of({ name: 'api-client' }, ['API_CLIENT'], 'API-Key');
  }
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** 401 with the challenge RFC 9110 §11.6.1 requires, and a JSON body like the pipeline's own errors. */
function unauthorized(message: string): Response {
  return Response.status(401).header('WWW-Authenticate', 'API-Key').entity({ status: 401, error: 'Unauthorized', message }).build();
}

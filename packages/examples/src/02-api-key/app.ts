/**
 * Example 2, api-key: the spec's filter-based API-key variant (Authentication rule 5).
 *
 *   GET /health                          → 200 without a key
 *   GET /api/things                      → 401, WWW-Authenticate: API-Key, {"error":"Unauthorized",...}
 *   GET /api/things  X-API-Key: demo-key → 200
 *
 * Keys come from `API_KEYS` (comma-separated); `demo-key` when unset, for trying it out.
 */
import { Application, Context, GET, Path, SecurityContext } from '@jaxrs-node/pipeline';
import { ApiKeyFilter } from './api-key-filter.js';

export { ApiKeyFilter } from './api-key-filter.js';

@Path('/health')
export class HealthResource {
  @GET()
  health(): { status: string } {
    return { status: 'UP' };
  }
}

@Path('/api/things')
export class ThingsResource {
  /** Reaching this method means the filter let the request through; the security context says who. */
  @GET()
  list(@Context() security: SecurityContext): { caller: string | undefined; scheme: string | undefined; things: string[] } {
    return { caller: security.principal?.name, scheme: security.authenticationScheme, things: ['alpha', 'beta'] };
  }
}

/** Options of {@link createApp}. */
export interface ApiKeyAppOptions {
  /** Accepted keys; default: `API_KEYS` from the environment, else `['demo-key']`. */
  keys?: readonly string[];
}

/** The application: two resources and one global request filter. */
export function createApp(options: ApiKeyAppOptions = {}): Application {
  const keys = options.keys ?? keysFromEnv();
  return new Application({
    resources: [HealthResource, ThingsResource],
    // An instance, because the filter needs configuration; its @Priority still applies.
    providers: [new ApiKeyFilter(keys)],
  });
}

function keysFromEnv(): string[] {
  const list = (process.env.API_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  return list.length > 0 ? list : ['demo-key'];
}

/**
 * Example 6, name-binding: providers applied to chosen methods only.
 *
 * - `@Timed()` is our own binding: `ServerTimingFilter` runs only on methods (or classes) that
 *   carry it.
 * - `@RolesAllowed('ADMIN')` is a binding WITH ARGUMENTS, from the library. `RolesAllowedFeature`
 *   reads the roles of every method at start-up and puts an authorization filter (AUTHORIZATION
 *   priority, so after our AUTHENTICATION filter) on the methods that need one:
 *   401 when nobody is authenticated, 403 when the caller lacks the role, else the method runs.
 *
 *   curl -i localhost:3000/api/reports/1                                       → 401
 *   curl -i -X DELETE -H 'Authorization: Bearer bob-token' localhost:3000/api/reports/1   → 403
 *   curl -i -X DELETE -H 'Authorization: Bearer alice-token' localhost:3000/api/reports/1 → 204
 */
import {
  Application,
  Context,
  DELETE,
  GET,
  Path,
  PathParam,
  ResourceInfo,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
} from '@jaxrs-node/pipeline';
import { BearerAuthFilter, CHALLENGE, ServerTimingFilter, Timed } from './providers.js';

export { BearerAuthFilter, ServerTimingFilter, Timed } from './providers.js';

@Path('/api/reports')
export class ReportsResource {
  private readonly reports = new Map<number, string>([
    [1, 'Q1'],
    [2, 'Q2'],
  ]);

  /** Public and timed. */
  @GET()
  @Timed()
  list(): string[] {
    return [...this.reports.values()];
  }

  /** Public, not timed: no binding, no filter. */
  @GET('/count')
  count(): { count: number } {
    return { count: this.reports.size };
  }

  /** Any signed-in USER or ADMIN. The binding's arguments are readable at run time too. */
  @GET('/{id}')
  @Timed()
  @RolesAllowed('USER', 'ADMIN')
  get(@PathParam('id') id: number, @Context() sc: SecurityContext, @Context() info: ResourceInfo): object {
    return { id, title: this.reports.get(id) ?? null, viewer: sc.principal?.name, requiredRoles: info.getBinding(RolesAllowed) };
  }

  /** ADMIN only. */
  @DELETE('/{id}')
  @RolesAllowed('ADMIN')
  remove(@PathParam('id') id: number): void {
    this.reports.delete(id);
  }
}

/** The application: authentication is global, timing and authorization are per method. */
export function createApp(): Application {
  return new Application({
    resources: [ReportsResource],
    providers: [new BearerAuthFilter(), ServerTimingFilter, new RolesAllowedFeature({ challenge: CHALLENGE })],
  });
}

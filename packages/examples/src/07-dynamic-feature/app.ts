/**
 * Example 7, dynamic-feature: a filter registered only for methods matching a start-up rule.
 *
 * `DeprecationFeature` looks at every resource method once, when the application is built, and
 * attaches a response filter to those under `/api/v1/`. Their responses carry `Deprecation`,
 * `Sunset` and `Link: <...>; rel="successor-version"`; `/api/v2/` responses carry nothing.
 *
 *   curl -si localhost:3000/api/v1/users | grep -iE 'deprecation|sunset|link'
 */
import { Application, GET, NotFoundError, Path, PathParam } from '@jaxrs-node/pipeline';
import { DeprecationFeature, type DeprecationOptions } from './deprecation-feature.js';

export { DeprecationFeature, DeprecationHeaders } from './deprecation-feature.js';

const USERS = [
  { id: 1, name: 'Ada Lovelace' },
  { id: 2, name: 'Alan Turing' },
];

@Path('/api/v1/users')
export class UsersV1 {
  @GET() list(): { id: number; name: string }[] {
    return USERS;
  }
  @GET('/{id}') get(@PathParam('id') id: number): { id: number; name: string } {
    const user = USERS.find((u) => u.id === id);
    if (user === undefined) throw new NotFoundError(`no user ${id}`);
    return user;
  }
}

/** v2 splits the name; same data. */
@Path('/api/v2/users')
export class UsersV2 {
  @GET() list(): { id: number; firstName: string; lastName: string }[] {
    return USERS.map((u) => {
      const [firstName = '', lastName = ''] = u.name.split(' ');
      return { id: u.id, firstName, lastName };
    });
  }
}

/** The rule main.ts uses; tests pass their own. */
export const DEFAULT_DEPRECATION: DeprecationOptions = {
  prefixes: ['/api/v1/'],
  deprecatedSince: new Date('2025-01-01T00:00:00Z'),
  sunset: new Date('2027-01-01T00:00:00Z'),
  successor: '/api/v2/users',
};

/** The application with the default rule (v1 deprecated). */
export function createApp(options: DeprecationOptions = DEFAULT_DEPRECATION): Application {
  return createAppWithFeature(options).app;
}

/** Like {@link createApp}, also handing back the feature. */
export function createAppWithFeature(options: DeprecationOptions = DEFAULT_DEPRECATION): { app: Application; feature: DeprecationFeature } {
  const feature = new DeprecationFeature(options);
  const app = new Application({ resources: [UsersV1, UsersV2], providers: [feature] });
  return { app, feature };
}

/**
 * Example 17, routing: how a request finds its resource method (JAX-RS 3.7), and how two
 * `@PreMatching` filters change the answer before matching starts. Every answer names the method
 * that produced it (`answeredBy`), so the rules are visible with curl:
 *
 *   curl localhost:3000/items/42                  → getJson    ({id: \d+} beats {name})
 *   curl localhost:3000/items/towel               → byName     (only {name} matches)
 *   curl localhost:3000/items/search?q=sa         → search     (a literal beats any template)
 *   curl localhost:3000/items/42/                 → getJson    (a trailing slash is tolerated)
 *   curl -H 'Accept: text/plain' localhost:3000/items/42                       → getText
 *   curl -H 'Accept: text/plain;q=0.8, application/json;q=0.8' localhost:3000/items/42
 *                                                 → getJson    (equal q: the server's qs decides)
 *   curl -i -X POST localhost:3000/items/42       → 405, Allow: DELETE, GET, HEAD, OPTIONS, PUT
 *                                                   ({id: \d+} matched: {name}'s POST is never tried)
 *   curl -X POST localhost:3000/items/towel       → wishByName (only {name} has a POST)
 *   curl -i localhost:3000/nothing                → 404
 *   curl -i -X PUT -H 'Content-Type: text/plain' -d x localhost:3000/items/42  → 415
 *   curl -i -H 'Accept: application/xml' localhost:3000/items/42               → 406
 *   curl -I localhost:3000/items/42               → 200, GET's headers, no body (automatic HEAD)
 *   curl -i -X OPTIONS localhost:3000/items/42    → 200, Allow (automatic OPTIONS)
 *   curl -X POST -H 'X-HTTP-Method-Override: DELETE' localhost:3000/items/42   → remove
 *   curl -H 'Accept-Version: 2' localhost:3000/items/42                        → ItemsV2Resource
 *
 * Matching order when a path matches: wrong method → 405 (+ Allow), then Content-Type vs
 * `@Consumes` → 415, then Accept vs `@Produces` → 406. Nothing is stored: this example is about
 * which method runs, so `PUT` and `DELETE` answer without changing the catalogue.
 */
import {
  Application,
  Consumes,
  DELETE,
  DefaultValue,
  GET,
  NotBlank,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Produces,
  PUT,
  QueryParam,
} from '@jaxrs-node/pipeline';
import { MethodOverrideFilter, VersionRewriteFilter } from './filters.js';

/** The read-only catalogue both API versions serve. */
const CATALOGUE: ReadonlyMap<number, string> = new Map([
  [1, 'hammer'],
  [2, 'saw'],
  [42, 'towel'],
]);

function nameOf(id: number): string {
  const name = CATALOGUE.get(id);
  if (name === undefined) throw new NotFoundError(`no item ${id}`);
  return name;
}

/** What `PUT /items/{id}` accepts (validated before the method runs). */
export class ItemInput {
  @NotBlank()
  name!: string;
}

/** Every JSON answer of version 1: which resource method answered, plus its data. */
export interface Answer {
  answeredBy: string;
  [key: string]: unknown;
}

/**
 * Version 1. Three templates share the `/items/` prefix; for `/items/42` the JAX-RS sort
 * (literal characters, then variables, then variables with their own regex, all descending)
 * puts `search` first, then `{id: \d+}`, then `{name}`. The first that matches decides the
 * available methods: `{name}` is never tried for `/items/42`, so its POST answers `/items/towel`
 * but a POST to `/items/42` is a 405 listing `{id: \d+}`'s methods (strict matching).
 */
@Path('/items')
export class ItemsResource {
  @GET()
  list(): Answer {
    return { answeredBy: 'list', items: [...CATALOGUE].map(([id, name]) => ({ id, name })) };
  }

  /** A literal segment: more literal characters than `/items/{name}`, so it wins for `search`. */
  @GET('search')
  search(@QueryParam('q') @DefaultValue('') q: string): Answer {
    const hits = [...CATALOGUE].filter(([, name]) => name.includes(q)).map(([id, name]) => ({ id, name }));
    return { answeredBy: 'search', q, hits };
  }

  /**
   * Two GET methods on one path, chosen by `Accept` (JAX-RS 3.8): client q first, then the
   * server's `qs`. JSON has the default qs=1 and text qs=0.5, so `*\/*` (or no Accept) and
   * equal q-values give JSON, and text only when the client prefers it.
   */
  @GET('{id: \\d+}')
  @Produces('application/json')
  getJson(@PathParam('id') id: number): Answer {
    return { answeredBy: 'getJson', id, name: nameOf(id) };
  }

  @GET('{id: \\d+}')
  @Produces('text/plain; qs=0.5')
  getText(@PathParam('id') id: number): string {
    return `getText: item ${id} is a ${nameOf(id)}\n`;
  }

  /** `@Consumes` makes a PUT with another Content-Type a 415 before this runs. */
  @PUT('{id: \\d+}')
  @Consumes('application/json')
  replace(@PathParam('id') id: number, input: ItemInput): Answer {
    nameOf(id);
    return { answeredBy: 'replace', id, name: input.name };
  }

  @DELETE('{id: \\d+}')
  remove(@PathParam('id') id: number): Answer {
    return { answeredBy: 'remove', id, name: nameOf(id) };
  }

  /** A method only `{name}` has: reachable only by paths that `{id: \d+}` does not match. */
  @POST('{name}')
  wishByName(@PathParam('name') name: string): Answer {
    return { answeredBy: 'wishByName', name };
  }

  /** Any other single segment: the least specific template. */
  @GET('{name}')
  byName(@PathParam('name') name: string): Answer {
    const hit = [...CATALOGUE].find(([, n]) => n === name);
    if (hit === undefined) throw new NotFoundError(`no item named ${name}`);
    return { answeredBy: 'byName', id: hit[0], name };
  }
}

/**
 * Version 2, a different shape. Clients reach it with `Accept-Version: 2` (rewritten to this path
 * by {@link VersionRewriteFilter}) or by its URL.
 */
@Path('/v2/items')
export class ItemsV2Resource {
  @GET('{id: \\d+}')
  @Produces('application/json')
  get(@PathParam('id') id: number): { answeredBy: string; version: 2; item: { id: number; name: string; href: string } } {
    return { answeredBy: 'v2.get', version: 2, item: { id, name: nameOf(id), href: `/items/${id}` } };
  }
}

/** The application: two resources and the two pre-matching filters of `filters.ts`. */
export function createApp(): Application {
  return new Application({
    resources: [ItemsResource, ItemsV2Resource],
    providers: [MethodOverrideFilter, VersionRewriteFilter],
  });
}

/**
 * Example 3, cors: the library's `CorsFilter`, the spec's optional CORS response filter.
 *
 * With no options it adds the spec's three headers to every response:
 *   Access-Control-Allow-Origin: *
 *   Access-Control-Allow-Methods: GET, POST, PUT, DELETE
 *   Access-Control-Allow-Headers: X-API-Key, Content-Type
 * and answers preflights (OPTIONS with `Origin` and `Access-Control-Request-Method`) itself with
 * 204, before matching, so no resource needs an `@OPTIONS` method.
 *
 * `createApp({ cors })` shows the other settings: an origin allow-list (the request `Origin` is
 * echoed only when listed, plus `Vary: Origin`), credentials, exposed headers and a preflight
 * cache time.
 */
import { Application, CorsFilter, GET, Path, POST, Response, type CorsOptions } from '@jaxrs-node/pipeline';

@Path('/api/items')
export class ItemsResource {
  private readonly items: string[] = ['apple', 'pear'];

  @GET()
  list(): string[] {
    return [...this.items];
  }

  @POST()
  add(item: { name: string }): Response {
    this.items.push(String(item.name));
    return Response.status(201).header('X-Item-Count', String(this.items.length)).entity({ name: item.name }).build();
  }
}

/** The configuration `main.ts` uses: the spec's defaults, spelled out so you can change them. */
export const SPEC_CORS: CorsOptions = {
  allowOrigin: '*',
  allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
  allowHeaders: ['X-API-Key', 'Content-Type'],
};

/** A stricter configuration: one trusted front-end, with cookies, reading a custom header. */
export const STRICT_CORS: CorsOptions = {
  allowOrigin: ['https://app.example'],
  allowCredentials: true,
  exposeHeaders: ['X-Item-Count'],
  maxAge: 600,
};

/** The application; `cors` defaults to {@link SPEC_CORS}. */
export function createApp(options: { cors?: CorsOptions } = {}): Application {
  return new Application({
    resources: [ItemsResource],
    // One provider, two roles: a @PreMatching request filter (preflight) and a response filter
    // at HEADER_DECORATOR priority (the headers on every response, errors included).
    providers: [new CorsFilter(options.cors ?? SPEC_CORS)],
  });
}

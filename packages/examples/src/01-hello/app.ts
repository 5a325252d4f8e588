/**
 * Example 1, hello: a resource class with `@Path`, `@GET` and `@POST`, path and query parameters
 * with defaults, and JSON in and out. The built-in JSON reader and writer need no registration.
 *
 *   GET  /hello                      → {"message":"Hello, world!"}
 *   GET  /hello?name=Ada&times=2     → {"message":"Hello, Ada! Hello, Ada!"}
 *   GET  /hello/Ada?lang=fr          → {"message":"Bonjour, Ada!"}
 *   POST /hello  {"name":"Ada"}      → 201 {"message":"Hello, Ada!", ...}
 */
import {
  Application,
  BadRequestError,
  Consumes,
  DefaultValue,
  GET,
  NotBlank,
  Path,
  PathParam,
  Pattern,
  POST,
  Produces,
  QueryParam,
  Response,
  Size,
} from '@jaxrs-node/pipeline';

const GREETINGS: Readonly<Record<string, string>> = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' };

/** What `POST /hello` accepts. The constraints run before the method (400 on failure). */
export class GreetingRequest {
  @NotBlank()
  @Size({ max: 50 })
  name!: string;

  @Pattern(/en|fr|de/, 'must be one of en, fr, de')
  lang?: string;
}

/** What every endpoint returns. */
export interface Greeting {
  message: string;
  lang: string;
}

@Path('/hello')
export class HelloResource {
  /** Query parameters: absent ones take their `@DefaultValue`; `times` is converted to a number (400 if not one). */
  @GET()
  greet(@QueryParam('name') @DefaultValue('world') name: string, @QueryParam('times') @DefaultValue('1') times: number): Greeting {
    if (!Number.isInteger(times) || times < 1 || times > 5) throw new BadRequestError('times must be an integer from 1 to 5');
    return { message: Array.from({ length: times }, () => `Hello, ${name}!`).join(' '), lang: 'en' };
  }

  /** A path parameter (`{name}`) plus an optional query parameter. */
  @GET('/{name}')
  greetByPath(@PathParam('name') name: string, @QueryParam('lang') @DefaultValue('en') lang: string): Greeting {
    const word = GREETINGS[lang];
    if (word === undefined) throw new BadRequestError(`unknown lang '${lang}': use en, fr or de`);
    return { message: `${word}, ${name}!`, lang };
  }

  /**
   * JSON in: the un-annotated parameter is the entity, read by the JSON reader and validated
   * against `GreetingRequest`'s constraints. JSON out, with 201 and a `Location`.
   */
  @POST()
  @Consumes('application/json')
  @Produces('application/json')
  create(request: GreetingRequest): Response {
    const lang = request.lang ?? 'en';
    const greeting: Greeting = { message: `${GREETINGS[lang]}, ${request.name}!`, lang };
    return Response.created(`/hello/${encodeURIComponent(request.name)}?lang=${lang}`)
      .entity(greeting)
      .build();
  }
}

/** The application: one resource, the built-in providers. */
export function createApp(): Application {
  return new Application({ resources: [HelloResource] });
}

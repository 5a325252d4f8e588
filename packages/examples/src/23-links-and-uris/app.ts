/**
 * Example 23, links, URIs and the application base path: the application lives under `/api`
 * (`basePath`, the equivalent of `@ApplicationPath`); `UriBuilder` builds each URI from the
 * resources' own `@Path` values, so renaming a path cannot leave a stale link behind; paged lists
 * carry RFC 8288 `Link` headers; a relative `Location` is resolved against the base URI.
 *
 *   curl -i 'localhost:3000/api/books?page=1&size=2'    → Link: <http://localhost:3000/api/books?page=0&size=2>; rel="prev", ...
 *   curl localhost:3000/api/books/2                     → {"title": ..., "links": {"self": ".../api/books/2", "author": ".../api/authors/1"}}
 *   curl -i -H 'content-type: application/json' -d '{"title":"New","author":1}' localhost:3000/api/books
 *                                                       → 201, Location: http://localhost:3000/api/books/5 (from a relative 'books/5')
 *   curl -i localhost:3000/books                        → 404 (outside the base path)
 */
import {
  Application,
  Context,
  Entity,
  GET,
  Link,
  NotFoundError,
  Path,
  PathParam,
  POST,
  QueryParam,
  DefaultValue,
  Response,
  UriBuilder,
  UriInfo,
  Int,
} from '@jaxrs-node/pipeline';

interface Book {
  title: string;
  author: number;
}

const BOOKS = new Map<number, Book>([
  [1, { title: 'Dune', author: 1 }],
  [2, { title: 'Children of Dune', author: 1 }],
  [3, { title: 'Solaris', author: 2 }],
  [4, { title: 'The Cyberiad', author: 2 }],
]);
const AUTHORS = new Map<number, string>([
  [1, 'Frank Herbert'],
  [2, 'Stanisław Lem'],
]);

@Path('/authors')
export class Authors {
  @GET() @Path('{id}') get(@PathParam('id', { type: Int }) id: number): object {
    const name = AUTHORS.get(id);
    if (name === undefined) throw new NotFoundError(`No author ${id}`);
    return { id, name };
  }
}

@Path('/books')
export class Books {
  @GET() list(
    @QueryParam('page', { type: Int }) @DefaultValue('0') page: number,
    @QueryParam('size', { type: Int }) @DefaultValue('10') size: number,
    @Context() uri: UriInfo,
  ): Response {
    const all = [...BOOKS.keys()];
    const last = Math.max(0, Math.ceil(all.length / size) - 1);
    const at = (p: number): string => uri.absolutePathBuilder().replaceQueryParam('page', p).replaceQueryParam('size', size).build();
    const links = [Link.of(at(0), 'first'), Link.of(at(last), 'last')];
    if (page > 0) links.push(Link.of(at(page - 1), 'prev'));
    if (page < last) links.push(Link.of(at(page + 1), 'next'));
    const items = all.slice(page * size, (page + 1) * size).map((id) => this.view(id, uri));
    return Response.ok(items)
      .links(...links)
      .header('x-total-count', all.length)
      .build();
  }

  @GET() @Path('{id}') get(@PathParam('id', { type: Int }) id: number, @Context() uri: UriInfo): object {
    return this.view(id, uri);
  }

  @POST() create(@Entity() book: Book): Response {
    const id = Math.max(...BOOKS.keys()) + 1;
    BOOKS.set(id, { title: book.title, author: book.author });
    // Relative: resolved against the base URI (http://host/api/) when the response is written.
    return Response.created(`books/${id}`)
      .entity({ id, ...book })
      .build();
  }

  private view(id: number, uri: UriInfo): object {
    const book = BOOKS.get(id);
    if (book === undefined) throw new NotFoundError(`No book ${id}`);
    const base = uri.baseUriBuilder();
    return {
      id,
      title: book.title,
      links: {
        self: base.clone().path(Books).path(Books, 'get').build(id),
        author: base.clone().path(Authors).path(Authors, 'get').build(book.author),
      },
    };
  }
}

/** A URI built outside a request, from the resource classes alone. */
export const authorTemplate = UriBuilder.fromResource(Authors).path(Authors, 'get').toTemplate();

export function createApp(): Application {
  return new Application({ basePath: '/api', resources: [Books, Authors] });
}

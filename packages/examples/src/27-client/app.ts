/**
 * Example 27, typed clients: one server (the shop) calls another (the catalogue) through a typed
 * client made from the catalogue's own contract, `BooksApi`, with a client filter adding the
 * bearer token and a response-exception mapper turning the catalogue's errors into the shop's.
 *
 *   curl localhost:3000/shop/books/1         → {"title":"Dune","price":9.5,"from":"catalogue"}
 *   curl -i localhost:3000/shop/books/99     → 404 (the catalogue's 404, mapped by CatalogueErrors)
 *   curl 'localhost:3000/shop/search?q=dune' → [{"id":1,"title":"Dune","price":9.5}]
 *
 * `main.ts` starts the catalogue on a free port and the shop on PORT; the shop's client has a
 * 2 s deadline, a size cap and gives up on a catalogue that is down with a 502.
 */
import {
  Application,
  BadGatewayError,
  Context,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  GET,
  NotAuthorizedError,
  NotFoundError,
  Path,
  PathParam,
  PreMatching,
  Priorities,
  Priority,
  Produces,
  QueryParam,
} from '@jaxrs-node/pipeline';
import {
  Client,
  type ClientOptions,
  type ClientRequestContext,
  type ClientRequestFilter,
  type ClientResponse,
  type ContractClient,
  type ResponseExceptionMapper,
  withCallOptions,
} from '@jaxrs-node/pipeline/client';

/** A book as the catalogue sends it. */
export interface Book {
  id: number;
  title: string;
  price: number;
}

/** The token the catalogue expects from the shop (a real one would come from configuration). */
export const CATALOGUE_TOKEN = 'shop-secret';

const contract = (): never => {
  throw new Error('BooksApi is a contract: the catalogue overrides it, clients call it');
};

/** The catalogue's API: decorators only. The catalogue's resource extends it; the shop's client is made from it. */
@Path('/api/books')
@Produces('application/json')
export abstract class BooksApi {
  @GET('{id}') get(@PathParam('id') _id: number): Promise<Book> {
    return contract();
  }
  @GET() search(@QueryParam('q') _q?: string): Promise<Book[]> {
    return contract();
  }
}

// ---- the catalogue

const BOOKS: Book[] = [
  { id: 1, title: 'Dune', price: 9.5 },
  { id: 2, title: 'Hyperion', price: 8 },
];

/** The catalogue's resource: overrides without decorators keep the contract's routes. */
export class Books extends BooksApi {
  override async get(id: number): Promise<Book> {
    const book = BOOKS.find((b) => b.id === id);
    if (book === undefined) throw new NotFoundError(`no book ${id}`);
    return book;
  }
  override async search(q?: string): Promise<Book[]> {
    return BOOKS.filter((b) => q === undefined || b.title.toLowerCase().includes(q.toLowerCase()));
  }
}

/** The catalogue only answers callers with its token. */
@PreMatching()
@Priority(Priorities.AUTHENTICATION)
class RequireToken implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('authorization') !== `Bearer ${CATALOGUE_TOKEN}`) throw new NotAuthorizedError('Bearer');
  }
}

export function createCatalogueApp(): Application {
  return new Application({ resources: [Books], providers: [RequireToken] });
}

// ---- the shop's client providers

/** Adds the bearer token to every call (a client request filter, JAX-RS `ClientRequestFilter`). */
@Priority(Priorities.AUTHENTICATION)
export class BearerToken implements ClientRequestFilter {
  constructor(private readonly token: string) {}
  filterClientRequest(request: ClientRequestContext): void {
    request.setHeader('authorization', `Bearer ${this.token}`);
  }
}

/** The catalogue's errors as the shop's: its 404 stays a 404 for the book, anything else is a 502. */
export class CatalogueErrors implements ResponseExceptionMapper {
  toError(response: ClientResponse): Error {
    if (response.status === 404) return new NotFoundError('no such book in the catalogue');
    return new BadGatewayError(`the catalogue answered ${response.status}`);
  }
}

/** The shop's client of the catalogue: these providers, a deadline and a size cap, plus `options` (where the catalogue is). */
export function catalogueClient(options: ClientOptions): Client {
  return new Client({
    deadline: 2_000,
    maxResponseBytes: 64 * 1024,
    ...options,
    providers: [new BearerToken(CATALOGUE_TOKEN), new CatalogueErrors(), ...(options.providers ?? [])],
  });
}

// ---- the shop

export function createShopApp(catalogue: Client): Application {
  const books: ContractClient<BooksApi> = catalogue.proxy(BooksApi);

  @Path('/shop')
  @Produces('application/json')
  class Shop {
    /** The request's signal goes with the call: a shop client that leaves cancels the catalogue call. */
    @GET('books/{id}') async book(@PathParam('id') id: number, @Context() signal: AbortSignal) {
      const book = await withCallOptions(books, { signal }).get(id);
      return { title: book.title, price: book.price, from: 'catalogue' };
    }

    @GET('search') search(@QueryParam('q') q?: string): Promise<Book[]> {
      return books.search(q);
    }
  }

  return new Application({ resources: [Shop] });
}

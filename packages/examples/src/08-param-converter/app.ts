/**
 * Example 8, param-converter: a `sort=field,direction` query parameter converted to a typed
 * `SortOrder` by a ParamConverterProvider; repeat it for several keys. Bad input is a 400.
 *
 *   curl 'localhost:3000/api/books?sort=year,desc&sort=title'
 *   curl -i 'localhost:3000/api/books?sort=price,up'     → 400, names the parameter and the problem
 */
import { Application, DefaultValue, GET, Path, QueryParam } from '@jaxrs-node/pipeline';
import { SortOrder, SortOrderConverterProvider } from './sort.js';

export { SortOrder, SortOrderConverter, SortOrderConverterProvider } from './sort.js';

/** A book. */
export interface Book {
  title: string;
  author: string;
  year: number;
}

const BOOKS: readonly Book[] = [
  { title: 'Dune', author: 'Herbert', year: 1965 },
  { title: 'Neuromancer', author: 'Gibson', year: 1984 },
  { title: 'Foundation', author: 'Asimov', year: 1951 },
  { title: 'Hyperion', author: 'Simmons', year: 1989 },
  { title: 'Solaris', author: 'Lem', year: 1961 },
  { title: 'Ubik', author: 'Dick', year: 1969 },
];

@Path('/api/books')
export class BooksResource {
  /**
   * `elementType` names the array's element type (TypeScript emits only `Array`); each value is
   * converted by the provider. The default is converted at start-up, so a typo in it fails
   * `build()`, not the first request.
   */
  @GET()
  list(@QueryParam('sort', { elementType: SortOrder }) @DefaultValue('title,asc') sort: SortOrder[]): { sort: string[]; books: Book[] } {
    const books = [...BOOKS].sort((a, b) => {
      for (const key of sort) {
        const c = key.compare(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>);
        if (c !== 0) return c;
      }
      return 0;
    });
    return { sort: sort.map(String), books };
  }
}

/** The application: the converter knows which fields may be sorted on. */
export function createApp(): Application {
  return new Application({
    resources: [BooksResource],
    providers: [new SortOrderConverterProvider(['title', 'author', 'year'])],
  });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Application, DefaultValue, GET, Path, QueryParam } from '@jaxrs-node/pipeline';
import { createApp, SortOrder, SortOrderConverterProvider, type Book } from '../src/08-param-converter/app.js';
import { listen, send, type Running } from './helpers/http.js';

const titles = (body: { books: Book[] }): string[] => body.books.map((b) => b.title);

describe('08 ParamConverterProvider: sort=field,direction', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('no sort parameter: the default (title,asc)', async () => {
    const r = await send(server.url, '/api/books');
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body.sort).toEqual(['title,asc']);
    expect(titles(body)).toEqual(['Dune', 'Foundation', 'Hyperion', 'Neuromancer', 'Solaris', 'Ubik']);
  });

  it('a typed key with a direction', async () => {
    const r = await send(server.url, '/api/books?sort=year,desc');
    expect(titles(r.json())).toEqual(['Hyperion', 'Neuromancer', 'Ubik', 'Dune', 'Solaris', 'Foundation']);
  });

  it('repeated keys; the direction defaults to asc', async () => {
    const r = await send(server.url, '/api/books?sort=author&sort=year,desc');
    expect(r.json().sort).toEqual(['author,asc', 'year,desc']);
    expect(titles(r.json())[0]).toBe('Foundation');
  });

  it.each([
    ['price,asc', "cannot sort by 'price'"],
    ['year,up', 'direction must be asc or desc'],
    ['year,asc,extra', 'expected field,direction'],
  ])('bad input %s is a 400 naming the parameter', async (value, problem) => {
    const r = await send(server.url, `/api/books?sort=${encodeURIComponent(value)}`);
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.code).toBe('PIPE_PARAM_CONVERSION');
    expect(body.message).toContain("query parameter 'sort'");
    expect(body.message).toContain(problem);
  });

  it('in-process: the same conversion', async () => {
    const r = await createApp().inject('/api/books?sort=title,desc');
    expect(titles(r.json())[0]).toBe('Ubik');
  });

  it('a bad @DefaultValue fails when the application is built, not on a request', () => {
    @Path('/broken')
    class Broken {
      @GET() list(@QueryParam('sort') @DefaultValue('price,asc') sort: SortOrder): string {
        return String(sort);
      }
    }
    const app = new Application({ resources: [Broken], providers: [new SortOrderConverterProvider(['title'])] });
    expect(() => app.build()).toThrow(/DefaultValue\('price,asc'\)/);
  });
});

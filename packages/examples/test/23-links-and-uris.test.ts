import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Link } from '@jaxrs-node/pipeline';
import { authorTemplate, createApp } from '../src/23-links-and-uris/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('23 links, URIs and the base path, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('serves under /api only', async () => {
    expect((await send(server.url, '/api/books/1')).status).toBe(200);
    expect((await send(server.url, '/books/1')).status).toBe(404);
    expect((await send(server.url, '/apibooks/1')).status).toBe(404);
  });

  it('builds links from the resources’ @Path values and the base URI', async () => {
    const book = (await send(server.url, '/api/books/2')).json<{ links: { self: string; author: string } }>();
    expect(book.links).toEqual({ self: `${server.url}/api/books/2`, author: `${server.url}/api/authors/1` });
    expect((await send(server.url, new URL(book.links.author).pathname)).json()).toEqual({ id: 1, name: 'Frank Herbert' });
    expect(authorTemplate).toBe('/authors/{id}');
  });

  it('paged lists carry first, prev, next and last links', async () => {
    const r = await send(server.url, '/api/books?page=1&size=1');
    const links = Link.parse(String(r.headers.link));
    const byRel = Object.fromEntries(links.map((l) => [l.rel, l.uri]));
    expect(byRel).toEqual({
      first: `${server.url}/api/books?page=0&size=1`,
      prev: `${server.url}/api/books?page=0&size=1`,
      next: `${server.url}/api/books?page=2&size=1`,
      last: `${server.url}/api/books?page=3&size=1`,
    });
    expect(r.headers['x-total-count']).toBe('4');
  });

  it('a relative Location is resolved against the base URI', async () => {
    const r = await send(server.url, '/api/books', { method: 'POST', body: { title: 'Fiasco', author: 2 } });
    expect(r.status).toBe(201);
    expect(r.headers.location).toBe(`${server.url}/api/books/5`);
    expect((await send(server.url, '/api/books/5')).json()).toMatchObject({ title: 'Fiasco' });
  });
});

import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientOf, createClient, ClientResponseError } from '@jaxrs-node/pipeline/client';
import { BearerToken, BooksApi, CATALOGUE_TOKEN, catalogueClient, createCatalogueApp, createShopApp } from '../src/27-client/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('27 client: the shop calls the catalogue through a typed client, over real sockets', () => {
  let catalogue: Running;
  let shop: Running;
  beforeAll(async () => {
    catalogue = await listen(createCatalogueApp());
    shop = await listen(createShopApp(catalogueClient({ baseUrl: catalogue.url })));
  });
  afterAll(async () => {
    await shop?.close();
    await catalogue?.close();
  });

  it('a book from the catalogue; the client filter sent the token the catalogue requires', async () => {
    expect((await send(shop.url, '/shop/books/1')).json()).toEqual({ title: 'Dune', price: 9.5, from: 'catalogue' });
    expect((await send(catalogue.url, '/api/books/1')).status).toBe(401);
  });

  it("the catalogue's 404 becomes the shop's 404 through the response-exception mapper", async () => {
    const r = await send(shop.url, '/shop/books/99');
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({ status: 404, message: 'no such book in the catalogue' });
  });

  it('query parameters go through', async () => {
    expect((await send(shop.url, '/shop/search?q=hyp')).json()).toEqual([{ id: 2, title: 'Hyperion', price: 8 }]);
  });
});

describe('27 client in tests: in-process, and with undici MockAgent', () => {
  it('in-process: a typed client straight into the catalogue application (no socket)', async () => {
    const books = createClient(BooksApi, { application: createCatalogueApp(), providers: [new BearerToken(CATALOGUE_TOKEN)] });
    expect(await books.get(2)).toEqual({ id: 2, title: 'Hyperion', price: 8 });
    expect(await books.search('dune')).toEqual([{ id: 1, title: 'Dune', price: 9.5 }]);
    await clientOf(books).close();
    // Without the filter, the catalogue's 401 is the default ClientResponseError.
    const anonymous = createClient(BooksApi, { application: createCatalogueApp() });
    const refused = await anonymous.get(1).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientResponseError);
    expect(refused).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer' } });
    await clientOf(anonymous).close();
  });

  it('MockAgent: the shop against a fake catalogue; its 500 is the shop’s 502', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const fake = agent.get('http://catalogue.test');
    fake
      .intercept({ path: '/api/books/1', method: 'GET', headers: { authorization: `Bearer ${CATALOGUE_TOKEN}` } })
      .reply(200, { id: 1, title: 'Fake', price: 1 }, { headers: { 'content-type': 'application/json' } });
    fake.intercept({ path: '/api/books/2', method: 'GET' }).reply(500, 'down');
    const client = catalogueClient({ baseUrl: 'http://catalogue.test', dispatcher: agent });
    const shop = createShopApp(client);
    expect((await shop.inject('/shop/books/1')).json()).toEqual({ title: 'Fake', price: 1, from: 'catalogue' });
    expect((await shop.inject('/shop/books/2')).status).toBe(502);
    agent.assertNoPendingInterceptors();
    await client.close();
    await agent.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/17-routing/app.js';
import { listen, send, type Reply, type Running } from './helpers/http.js';

/** Which resource method answered: `answeredBy` in JSON, the first word of a text answer. */
const answeredBy = (r: Reply): string =>
  String(r.headers['content-type']).startsWith('application/json') ? r.json<{ answeredBy: string }>().answeredBy : r.text.split(':')[0]!;

const V1_ITEM_ALLOW = 'DELETE, GET, HEAD, OPTIONS, PUT';
const GET_ONLY_ALLOW = 'GET, HEAD, OPTIONS';
const BY_NAME_ALLOW = 'GET, HEAD, OPTIONS, POST';

describe('17 routing: how a request finds its method, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('{id: \\d+} beats {name}, a literal beats both, and a trailing slash is tolerated', async () => {
    const cases: [string, string][] = [
      ['/items/42', 'getJson'],
      ['/items/towel', 'byName'],
      ['/items/search?q=sa', 'search'],
      ['/items/42/', 'getJson'],
      ['/items/search/', 'search'],
      ['/items/', 'list'],
    ];
    for (const [path, method] of cases) {
      const r = await send(server.url, path);
      expect([path, r.status, answeredBy(r)]).toEqual([path, 200, method]);
    }
    expect((await send(server.url, '/items/search?q=sa')).json()).toMatchObject({ hits: [{ id: 2, name: 'saw' }] });
  });

  it('strict matching: the most specific template alone decides the methods (405 + Allow)', async () => {
    const post = await send(server.url, '/items/42', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe(V1_ITEM_ALLOW);
    expect(post.json()).toMatchObject({ code: 'PIPE_METHOD_NOT_ALLOWED' });
    // {name} has a POST and would match "42" too, but {id: \d+} matched first and decides alone.
    const wish = await send(server.url, '/items/towel', { method: 'POST' });
    expect([wish.status, answeredBy(wish)]).toEqual([200, 'wishByName']);
    // /items/towel only matches {name}: the DELETE of {id: \d+} is not tried either.
    const del = await send(server.url, '/items/towel', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe(BY_NAME_ALLOW);
  });

  it('404 when no template matches, unlike a 404 thrown by a method that did match', async () => {
    const none = await send(server.url, '/nothing');
    expect(none.status).toBe(404);
    expect(none.json()).toMatchObject({ code: 'PIPE_NO_MATCH' });
    const missing = await send(server.url, '/items/7');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'HTTP_404', message: 'no item 7' });
  });

  it('errors come in the order 405, then 415, then 406', async () => {
    const bad = { 'content-type': 'text/plain', accept: 'application/xml' };
    expect((await send(server.url, '/items/42', { method: 'POST', headers: bad, body: 'x' })).status).toBe(405);
    const put = await send(server.url, '/items/42', { method: 'PUT', headers: bad, body: 'x' });
    expect(put.status).toBe(415);
    expect(put.json()).toMatchObject({ code: 'PIPE_UNSUPPORTED_MEDIA_TYPE' });
    const get = await send(server.url, '/items/42', { headers: { accept: 'application/xml' } });
    expect(get.status).toBe(406);
    expect(get.json()).toMatchObject({ code: 'PIPE_NOT_ACCEPTABLE' });
    const ok = await send(server.url, '/items/42', { method: 'PUT', body: { name: 'rag' } });
    expect([ok.status, ok.json()]).toEqual([200, { answeredBy: 'replace', id: 42, name: 'rag' }]);
  });

  it('two GET methods on one path: client q decides, then the server qs (JSON 1, text 0.5)', async () => {
    const JSON_TYPE = 'application/json';
    const TEXT_TYPE = 'text/plain; charset=utf-8';
    const cases: [string | undefined, string, string][] = [
      [undefined, 'getJson', JSON_TYPE],
      ['*/*', 'getJson', JSON_TYPE],
      ['text/plain', 'getText', TEXT_TYPE],
      ['text/*', 'getText', TEXT_TYPE],
      ['application/json;q=0.5, text/plain', 'getText', TEXT_TYPE],
      ['text/plain;q=0.8, application/json;q=0.8', 'getJson', JSON_TYPE], // equal q: qs breaks the tie
    ];
    for (const [accept, method, type] of cases) {
      const r = await send(server.url, '/items/42', accept === undefined ? {} : { headers: { accept } });
      // Accept chose the representation, so a shared cache must key on it too.
      expect([accept, r.status, answeredBy(r), r.headers['content-type'], r.headers.vary]).toEqual([
        accept,
        200,
        method,
        type,
        'Accept-Version, Accept',
      ]);
    }
    expect((await send(server.url, '/items/42', { headers: { accept: 'text/plain' } })).text).toBe('getText: item 42 is a towel\n');
    // q=0 refuses text, and a range that names text/plain alone does not accept JSON: nothing left.
    expect((await send(server.url, '/items/42', { headers: { accept: 'text/plain;q=0' } })).status).toBe(406);
  });

  it('automatic HEAD runs the GET method chosen by Accept: same headers, no body', async () => {
    for (const accept of ['application/json', 'text/plain']) {
      const get = await send(server.url, '/items/42', { headers: { accept } });
      const head = await send(server.url, '/items/42', { method: 'HEAD', headers: { accept } });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(head.headers['content-length']).toBe(String(get.body.length));
    }
  });

  it('automatic OPTIONS answers 200 with the Allow of the matched template and no body', async () => {
    const cases: [string, string][] = [
      ['/items/42', V1_ITEM_ALLOW],
      ['/items/42/', V1_ITEM_ALLOW],
      ['/items/towel', BY_NAME_ALLOW],
      ['/items/search', GET_ONLY_ALLOW],
    ];
    for (const [path, allow] of cases) {
      const r = await send(server.url, path, { method: 'OPTIONS' });
      expect([path, r.status, r.headers.allow, r.text]).toEqual([path, 200, allow, '']);
    }
  });

  it('X-HTTP-Method-Override turns a POST into an allow-listed method before matching', async () => {
    const del = await send(server.url, '/items/42', { method: 'POST', headers: { 'x-http-method-override': 'DELETE' } });
    expect([del.status, answeredBy(del)]).toEqual([200, 'remove']);
    // Case-insensitive, and the body is read by the method the override chose.
    const put = await send(server.url, '/items/42', {
      method: 'POST',
      headers: { 'x-http-method-override': 'put' },
      body: { name: 'mop' },
    });
    expect([put.status, put.json()]).toEqual([200, { answeredBy: 'replace', id: 42, name: 'mop' }]);
    // PATCH is allowed as an override, but no method has it: the 405 proves matching saw PATCH.
    const patch = await send(server.url, '/items/42', { method: 'POST', headers: { 'x-http-method-override': 'PATCH' } });
    expect([patch.status, patch.headers.allow, patch.json<{ message: string }>().message]).toEqual([
      405,
      V1_ITEM_ALLOW,
      'Method PATCH is not allowed here',
    ]);
  });

  it('an override outside the allow-list is REFUSED (400) on a POST, and IGNORED on a GET', async () => {
    // Decision (filters.ts): refusing tells the client; ignoring would run a POST it did not ask for.
    for (const wanted of ['GET', 'TRACE', 'CONNECT', 'HEAD', 'DELETE, PUT']) {
      const r = await send(server.url, '/items/42', { method: 'POST', headers: { 'x-http-method-override': wanted } });
      expect([wanted, r.status, r.json<{ code: string }>().code]).toEqual([wanted, 400, 'EXAMPLE_METHOD_OVERRIDE']);
    }
    // Only POST is overridden: a GET (a link, an <img>) can never become a DELETE.
    const get = await send(server.url, '/items/42', { headers: { 'x-http-method-override': 'DELETE' } });
    expect([get.status, answeredBy(get)]).toEqual([200, 'getJson']);
  });

  it('Accept-Version: 2 rewrites the URI to /v2/..., so another resource class answers', async () => {
    const v2 = await send(server.url, '/items/42', { headers: { 'accept-version': '2' } });
    expect(v2.status).toBe(200);
    expect(v2.json()).toEqual({ answeredBy: 'v2.get', version: 2, item: { id: 42, name: 'towel', href: '/items/42' } });
    expect(v2.headers.vary).toBe('Accept-Version');
    expect(answeredBy(await send(server.url, '/items/42', { headers: { 'accept-version': '1' } }))).toBe('getJson');
    expect(answeredBy(await send(server.url, '/items/42'))).toBe('getJson');
    // The v2 URL works directly, and the header on it does not prefix twice.
    expect(answeredBy(await send(server.url, '/v2/items/42'))).toBe('v2.get');
    expect(answeredBy(await send(server.url, '/v2/items/42', { headers: { 'accept-version': '2' } }))).toBe('v2.get');
    // Version 2 has no {name} template: the rewritten path matches nothing.
    const byName = await send(server.url, '/items/towel', { headers: { 'accept-version': '2' } });
    expect([byName.status, byName.json<{ message: string }>().message]).toEqual([404, 'No resource matches GET /v2/items/towel']);
    for (const version of ['3', 'constructor', '']) {
      const r = await send(server.url, '/items/42', { headers: { 'accept-version': version } });
      expect([version, r.status, r.json<{ code: string }>().code]).toEqual([version, 400, 'EXAMPLE_UNKNOWN_VERSION']);
    }
  });
});

describe('17 routing, in-process with app.inject()', () => {
  it('both pre-matching filters apply before matching: POST + override + version = DELETE /v2/items/42', async () => {
    const app = createApp();
    const r = await app.inject({
      method: 'POST',
      url: '/items/42',
      headers: { 'x-http-method-override': 'DELETE', 'accept-version': '2' },
    });
    // v2's template has GET only, so the 405 lists v2's methods, not v1's DELETE-capable ones.
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe(GET_ONLY_ALLOW);
    expect(r.json()).toMatchObject({ message: 'Method DELETE is not allowed here' });
  });

  it('the same answers as over the socket', async () => {
    const app = createApp();
    const text = await app.inject({ url: '/items/42', headers: { accept: 'application/json;q=0.1, text/*;q=0.2' } });
    expect([text.status, text.headers['content-type'], text.text()]).toEqual([
      200,
      'text/plain; charset=utf-8',
      'getText: item 42 is a towel\n',
    ]);
    const options = await app.inject({ method: 'OPTIONS', url: '/items/towel' });
    expect([options.status, options.headers.allow]).toEqual([200, BY_NAME_ALLOW]);
    const v2 = await app.inject({ url: '/items/1', headers: { 'accept-version': '2' } });
    expect(v2.json()).toMatchObject({ answeredBy: 'v2.get', item: { id: 1, name: 'hammer' } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/01-hello/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('01 hello: path and query parameters, JSON in and out', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('GET with no query uses the defaults', async () => {
    const r = await send(server.url, '/hello');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.json()).toEqual({ message: 'Hello, world!', lang: 'en' });
  });

  it('query parameters are converted to the declared types', async () => {
    const r = await send(server.url, '/hello?name=Ada&times=2');
    expect(r.json()).toEqual({ message: 'Hello, Ada! Hello, Ada!', lang: 'en' });
  });

  it('a query value that is not a number is a 400 with a JSON error', async () => {
    const r = await send(server.url, '/hello?times=many');
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request', code: 'PIPE_PARAM_CONVERSION' });
  });

  it('path parameters are decoded', async () => {
    const r = await send(server.url, '/hello/Zo%C3%AB?lang=fr');
    expect(r.json()).toEqual({ message: 'Bonjour, Zoë!', lang: 'fr' });
  });

  it('POST reads JSON, answers 201 with Location and JSON', async () => {
    const r = await send(server.url, '/hello', { method: 'POST', body: { name: 'Ada', lang: 'de' } });
    expect(r.status).toBe(201);
    // Relative Location values are resolved against the application's base URI (Jakarta REST 3.1).
    expect(r.headers.location).toBe(`${server.url}/hello/Ada?lang=de`);
    expect(r.json()).toEqual({ message: 'Hallo, Ada!', lang: 'de' });
  });

  it('POST with a body that breaks the constraints is a 400 listing every violation', async () => {
    const r = await send(server.url, '/hello', { method: 'POST', body: { name: ' ', lang: 'xx' } });
    expect(r.status).toBe(400);
    const fields = r.json<{ errors: { field: string }[] }>().errors.map((e) => e.field);
    expect(fields.sort()).toEqual(['body.lang', 'body.name']);
  });

  it('POST with something other than JSON is a 415', async () => {
    const r = await send(server.url, '/hello', { method: 'POST', body: 'name=Ada', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(415);
  });

  it('in-process: app.inject runs the same pipeline without a socket', async () => {
    const r = await createApp().inject('/hello/Ada');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ message: 'Hello, Ada!', lang: 'en' });
  });
});

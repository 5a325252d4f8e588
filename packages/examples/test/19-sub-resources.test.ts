import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/19-sub-resources/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('19 sub-resources: locators, over a real socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('matching continues in what the locators return, two levels deep', async () => {
    expect((await send(server.url, '/projects')).json()).toEqual(['apollo', 'gemini']);
    expect((await send(server.url, '/projects/apollo')).json()).toEqual({ name: 'apollo', tasks: 2 });
    expect((await send(server.url, '/projects/apollo/tasks/2')).json()).toEqual({ project: 'apollo', id: 2, title: 'land', done: false });
    const put = await send(server.url, '/projects/apollo/tasks/2', { method: 'PUT', body: { done: true } });
    expect(put.json()).toMatchObject({ id: 2, done: true });
    expect((await send(server.url, '/projects/apollo/summary')).text).toBe('apollo: 1/2 done');
  });

  it('404 when a locator finds nothing, 405 with Allow for a method the sub-resource lacks', async () => {
    expect((await send(server.url, '/projects/nope')).status).toBe(404);
    expect((await send(server.url, '/projects/apollo/tasks/9')).status).toBe(404);
    const del = await send(server.url, '/projects/apollo/tasks/1', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe('GET, HEAD, OPTIONS, PUT');
  });

  it("the root resource's bound filter runs for methods reached through its locators", async () => {
    expect((await send(server.url, '/projects/gemini/tasks/1')).headers['x-project-audit']).toBe('gemini');
  });
});

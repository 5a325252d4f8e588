import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/11-context-resolver/app.js';
import { listen, send, type Running } from './helpers/http.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');

describe('11 ContextResolver<JsonOptions>: JSON configured per type', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(() => server.close());

  it('AuditEvent: epoch-millis dates, nulls omitted, compact', async () => {
    const r = await send(server.url, '/api/events/1');
    expect(r.status).toBe(200);
    expect(r.text).toBe(`{"id":1,"action":"login","at":${T0}}`);
  });

  it('an array with an explicit type token gets the same options', async () => {
    const r = await send(server.url, '/api/events');
    expect(r.json()).toEqual([
      { id: 1, action: 'login', at: T0 },
      { id: 2, action: 'export', at: T0 + 60_000, actor: 'alice' },
    ]);
  });

  it('Report: indented, ISO dates, nulls kept', async () => {
    const r = await send(server.url, '/api/report');
    expect(r.text).toBe(
      [
        '{',
        '  "title": "Q1",',
        '  "generatedAt": "2025-01-01T00:00:00.000Z",',
        '  "totals": {',
        '    "north": 12,',
        '    "south": 7',
        '  },',
        '  "comment": null',
        '}',
      ].join('\n'),
    );
  });

  it('other types: the defaults', async () => {
    const r = await send(server.url, '/api/status');
    expect(r.text).toBe('{"status":"UP","since":"2025-01-01T00:00:00.000Z","maintenance":null}');
  });

  it('in-process: same output; error bodies are unaffected', async () => {
    const app = createApp();
    expect((await app.inject('/api/events/2')).json()).toEqual({ id: 2, action: 'export', at: T0 + 60_000, actor: 'alice' });
    const missing = await app.inject('/api/events/9');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, message: 'no event 9' });
  });
});

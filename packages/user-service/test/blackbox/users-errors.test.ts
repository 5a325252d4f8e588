import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

/**
 * The error body (SPEC "Errors", issue decision): every error answer carries timestamp (string),
 * status (= HTTP status), error (the reason text), errors (array; for validation non-empty, one
 * item per violation, naming the field), message and path. And the X-API-Version contract.
 */

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

/** Asserts the full error-body contract and returns the parsed body. */
function expectErrorBody(r: HttpResult, status: number, reason: string, path: string): Record<string, any> {
  expect(r.status).toBe(status);
  expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
  const body = r.json();
  expect(typeof body.timestamp).toBe('string');
  expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  expect(body.status).toBe(status);
  expect(body.error).toBe(reason);
  expect(Array.isArray(body.errors)).toBe(true);
  expect(typeof body.message).toBe('string');
  expect(body.path).toBe(path);
  return body;
}

const valid = { email: 'ok@example.com', firstName: 'Okay', lastName: 'Fine' };

describe('the error body on every kind of error', () => {
  it('400 validation: one item per violation, each naming its field (3 problems -> 3 items)', async () => {
    const r = await http(server.url, 'POST', '/api/users', { body: { email: 'not-an-email', firstName: 'J', lastName: '' } });
    const body = expectErrorBody(r, 400, 'Bad Request', '/api/users');
    expect(body.errors).toHaveLength(3);
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'firstName', 'lastName']);
    for (const e of body.errors) expect(typeof e.message).toBe('string');
  });

  it('400 validation lists four problems when all four fields are wrong', async () => {
    const r = await http(server.url, 'POST', '/api/users', { body: { email: 42, firstName: 'x'.repeat(51), lastName: '   ', age: 101 } });
    const body = expectErrorBody(r, 400, 'Bad Request', '/api/users');
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['age', 'email', 'firstName', 'lastName']);
  });

  it('400 for a missing required field, a too-short first name and a non-integer age', async () => {
    for (const [body, field] of [
      [{ firstName: 'Ab', lastName: 'C' }, 'email'],
      [{ ...valid, firstName: 'A' }, 'firstName'],
      [{ ...valid, lastName: '' }, 'lastName'],
      [{ ...valid, age: 30.5 }, 'age'],
      [{ ...valid, age: '30' }, 'age'],
      [{ ...valid, age: 17 }, 'age'],
    ] as const) {
      const out = expectErrorBody(await http(server.url, 'POST', '/api/users', { body }), 400, 'Bad Request', '/api/users');
      expect(out.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
  });

  it('400 for an id that is not a positive integer, naming the parameter', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const body = expectErrorBody(await http(server.url, 'GET', `/api/users/${id}`), 400, 'Bad Request', `/api/users/${id}`);
      expect(body.errors.length).toBeGreaterThan(0);
    }
  });

  it('404 for an absent user and for an unknown path', async () => {
    expectErrorBody(await http(server.url, 'GET', '/api/users/424242'), 404, 'Not Found', '/api/users/424242');
    expectErrorBody(await http(server.url, 'GET', '/api/no-such-thing'), 404, 'Not Found', '/api/no-such-thing');
  });

  it('405 for a wrong method, 415 for an unsupported body type, 406 for an unproducible Accept', async () => {
    expectErrorBody(await http(server.url, 'DELETE', '/api/users'), 405, 'Method Not Allowed', '/api/users');
    expectErrorBody(
      await http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'text/plain' }, body: 'hello' }),
      415,
      'Unsupported Media Type',
      '/api/users',
    );
    expectErrorBody(
      await http(server.url, 'GET', '/api/users/1', { headers: { accept: 'text/csv' } }),
      406,
      'Not Acceptable',
      '/api/users/1',
    );
  });

  it('409 for a forbidden order move, 413 for an oversized body', async () => {
    const conflict = await http(server.url, 'PUT', '/api/users/1/orders/1/status', { body: { status: 'COMPLETED' } });
    expect(expectErrorBody(conflict, 409, 'Conflict', '/api/users/1/orders/1/status').errors.length).toBeGreaterThan(0);
    const big = JSON.stringify({ ...valid, pad: 'x'.repeat(1024 * 1024) });
    expectErrorBody(
      await http(server.url, 'POST', '/api/users', { headers: { 'content-type': 'application/json' }, body: big }),
      413,
      'Payload Too Large',
      '/api/users',
    );
  });

  it('uses the error body for authentication failures too', async () => {
    expectErrorBody(await http(server.url, 'GET', '/api/admin/users'), 401, 'Unauthorized', '/api/admin/users');
  });
});

describe('X-API-Version', () => {
  it('accepts 1 and echoes it', async () => {
    const r = await http(server.url, 'GET', '/api/users/1', { headers: { 'x-api-version': '1' } });
    expect(r.status).toBe(200);
    expect(r.headers['x-api-version']).toBe('1');
  });

  it('treats a missing header as 1 and still echoes it (also on errors)', async () => {
    const r = await http(server.url, 'GET', '/api/users/1');
    expect(r.status).toBe(200);
    expect(r.headers['x-api-version']).toBe('1');
    expect((await http(server.url, 'GET', '/api/users/424242')).headers['x-api-version']).toBe('1');
    expect((await http(server.url, 'POST', '/api/users', { body: {} })).headers['x-api-version']).toBe('1');
  });

  it.each(['2', '0', '1.0', 'v1', '01'])('rejects X-API-Version %j with 400 and the error body', async (version) => {
    const r = await http(server.url, 'GET', '/api/users/1', { headers: { 'x-api-version': version } });
    const body = expectErrorBody(r, 400, 'Bad Request', '/api/users/1');
    expect(body.errors.length).toBeGreaterThan(0);
    expect(r.headers['x-api-version']).toBe('1');
  });

  it('rejects an unsupported version before any write happens', async () => {
    const r = await http(server.url, 'POST', '/api/users', {
      headers: { 'x-api-version': '2' },
      body: { ...valid, email: 'v2.write@example.com' },
    });
    expectErrorBody(r, 400, 'Bad Request', '/api/users');
    expect((await http(server.url, 'GET', '/api/users?email=v2.write%40example.com')).json()).toEqual([]);
  });
});

describe('problem details (RFC 9457) when Accept prefers them', () => {
  const PREFERS = 'application/problem+json, application/json;q=0.9';
  /** Through http(): the answer is also checked against the OpenAPI document, which lists both error formats. */
  async function call(path: string, accept: string | undefined): Promise<{ status: number; type: string; vary: string; body: any }> {
    const res = await http(server.url, 'GET', path, { headers: accept === undefined ? {} : { accept } });
    return { status: res.status, type: String(res.headers['content-type']), vary: String(res.headers.vary), body: res.json() };
  }

  it('a bad page and size: one 400 as application/problem+json, the items named as in the error body', async () => {
    const r = await call('/api/users?page=-1&size=abc', PREFERS);
    expect([r.status, r.type]).toEqual([400, 'application/problem+json']);
    expect(r.vary).toMatch(/\bAccept\b/);
    expect(r.body).toMatchObject({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      instance: '/api/users',
      code: 'PIPE_VALIDATION',
    });
    expect(r.body.errors).toEqual([
      { field: 'size', message: "'abc' is not an integer", value: 'abc' },
      expect.objectContaining({ field: 'page', value: -1 }),
    ]);
    expect(r.body.timestamp).toBeUndefined();
  });

  it('404 and 401 too, with the message as detail', async () => {
    const missing = await call('/api/users/424242', PREFERS);
    expect([missing.status, missing.type, missing.body.title, missing.body.instance]).toEqual([
      404,
      'application/problem+json',
      'Not Found',
      '/api/users/424242',
    ]);
    expect(typeof missing.body.detail).toBe('string');
    const unauthorized = await call('/api/admin/users', PREFERS);
    expect([unauthorized.status, unauthorized.type, unauthorized.body.status]).toEqual([401, 'application/problem+json', 401]);
  });

  it('without that preference the specified error body, which also varies on Accept', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, application/problem+json']) {
      const r = await call('/api/users?page=-1&size=abc', accept);
      expect([r.status, r.type]).toEqual([400, 'application/json']);
      expect(r.vary).toMatch(/\bAccept\b/);
      expect(r.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users' });
      expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['page', 'size']);
    }
  });
});

/**
 * Black-box tests of the XML user view `GET /api/xml/users/{id}`: the document shape (parsed
 * with fast-xml-parser), escaping of hostile values, rejection of characters XML cannot carry at
 * the door (400 on create/replace/patch), content negotiation (406), and error statuses.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';

const XML = { accept: 'application/xml' };
/** Values as strings, so `<id>1</id>` is checked as text exactly like the SPEC says. */
const parser = new XMLParser({ parseTagValue: false, ignoreDeclaration: true });

function parseUser(r: HttpResult): Record<string, unknown> {
  expect(XMLValidator.validate(r.text)).toBe(true);
  const doc = parser.parse(r.text) as Record<string, unknown>;
  expect(Object.keys(doc)).toEqual(['user']);
  return doc['user'] as Record<string, unknown>;
}

describe('XML user view (black box)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('GET /api/xml/users/1 with Accept: application/xml answers a <user> document', async () => {
    const r = await http(server.url, 'GET', '/api/xml/users/1', { headers: XML });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/xml/);
    expect(r.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const user = parseUser(r);
    expect(user).toMatchObject({ id: '1', email: 'test@example.com', firstName: 'John', lastName: 'Doe' });
    expect(user['roles']).toEqual({ role: 'USER' });
  });

  it('answers text/xml when asked for it, and XML when the client accepts anything', async () => {
    const text = await http(server.url, 'GET', '/api/xml/users/1', { headers: { accept: 'text/xml' } });
    expect(text.status).toBe(200);
    expect(text.headers['content-type']).toMatch(/^text\/xml/);
    expect(parseUser(text)['id']).toBe('1');
    const any = await http(server.url, 'GET', '/api/xml/users/1', { headers: { accept: '*/*' } });
    expect(any.status).toBe(200);
    expect(any.headers['content-type']).toMatch(/^application\/xml/);
  });

  it('answers 406 with a JSON error for Accept: application/json', async () => {
    const r = await http(server.url, 'GET', '/api/xml/users/1', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(406);
    expect(r.json()).toMatchObject({ status: 406, error: 'Not Acceptable' });
  });

  it('escapes hostile values and stays well-formed', async () => {
    const hostile = { email: 'xml.hostile@example.com', firstName: '<script>&"\'', lastName: ']]><!-- &amp; </user>', age: 33 };
    const created = await http(server.url, 'POST', '/api/users', { body: hostile });
    expect(created.status).toBe(201);
    const { id } = created.json<{ id: number }>();

    const r = await http(server.url, 'GET', `/api/xml/users/${id}`, { headers: XML });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('<script>');
    expect(r.text).not.toContain(']]>');
    expect(r.text).not.toContain('<!--');
    const user = parseUser(r);
    expect(user).toMatchObject({ id: String(id), firstName: hostile.firstName, lastName: hostile.lastName });
    expect(user['fullName']).toBe(`${hostile.firstName} ${hostile.lastName}`);
  });

  it('keeps non-ASCII and astral characters intact', async () => {
    const body = { email: 'xml.unicode@example.com', firstName: 'Zo\u00eb \u{1F600}', lastName: '\u00d8ster\u00e5s' };
    const created = await http(server.url, 'POST', '/api/users', { body });
    expect(created.status).toBe(201);
    const r = await http(server.url, 'GET', `/api/xml/users/${created.json().id}`, { headers: XML });
    expect(parseUser(r)).toMatchObject({ firstName: body.firstName, lastName: body.lastName });
  });

  it.each([
    ['a NUL', 'Ab\u0000c'],
    ['a vertical tab', 'Ab\u000bc'],
    ['an escape', 'Ab\u001bc'],
    ['DEL', 'Ab\u007fc'],
    ['a lone high surrogate', 'Ab\ud800c'],
    ['a lone low surrogate', 'Ab\udc00c'],
  ])('rejects %s in a name with 400 at create', async (_name, firstName) => {
    const email = `ctl.${Math.random().toString(36).slice(2)}@example.com`;
    // JSON.stringify writes lone surrogates as \\udXXX escapes, so the server sees them as sent.
    const r = await http(server.url, 'POST', '/api/users', { body: { email, firstName, lastName: 'Ok' } });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(r.json().errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'firstName' })]));
    expect((await http(server.url, 'GET', `/api/users?email=${encodeURIComponent(email)}`)).json()).toEqual([]);
  });

  it('rejects control characters on PUT and PATCH too, leaving the user unchanged', async () => {
    const created = await http(server.url, 'POST', '/api/users', {
      body: { email: 'xml.ctl@example.com', firstName: 'Clean', lastName: 'Name' },
    });
    const { id } = created.json<{ id: number }>();
    const put = await http(server.url, 'PUT', `/api/users/${id}`, {
      body: { email: 'xml.ctl@example.com', firstName: 'Clean', lastName: 'Na\u0001me' },
    });
    expect(put.status).toBe(400);
    const patch = await http(server.url, 'PATCH', `/api/users/${id}`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ firstName: 'Bad\u0008' }),
    });
    expect(patch.status).toBe(400);
    const r = await http(server.url, 'GET', `/api/xml/users/${id}`, { headers: XML });
    expect(parseUser(r)).toMatchObject({ firstName: 'Clean', lastName: 'Name' });
  });

  // BUG (pipeline, packages/pipeline/src/core/stages/write-entity.ts `responseMediaType`): an error on this
  // route keeps the route's negotiated type application/xml, no writer can write the error body as
  // XML, and the client gets a plain 500. Fix: for status >= 400 use the route's type only when a
  // writer can write the error entity in it, else negotiate among the entity's writers (JSON).
  it.each([
    ['an unknown id', '/api/xml/users/999999', 404],
    ['a malformed id', '/api/xml/users/abc', 400],
  ])('answers the right 4xx (not 500) for %s with Accept: application/xml', async (_name, path, status) => {
    for (const accept of ['application/xml', '*/*', 'application/xml, application/json;q=0.1']) {
      const r = await http(server.url, 'GET', path, { headers: { accept } });
      expect(r.status, accept).toBe(status);
      expect(r.json()).toMatchObject({ status });
    }
  });
});

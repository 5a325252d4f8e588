import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { findClassMeta } from '../../../src/core/model/metadata.js';
import { Priorities } from '../../../src/core/util/priorities.js';
import { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import { Response, type OutgoingHeaders } from '../../../src/core/http/response.js';
import { CorsFilter } from '../../../src/features/cors/index.js';
import { appendVary } from '../../../src/core/http/vary.js';

function request(method: string, headers: IncomingHttpHeaders = {}): ContainerRequestContext {
  const fakeReq = { headers } as unknown as IncomingMessage;
  return new ContainerRequestContext(fakeReq, {} as ServerResponse, method, '/api/users', '', false);
}

function respond(filter: CorsFilter, req: ContainerRequestContext, response = new Response(200, { ok: true })): OutgoingHeaders {
  filter.filterResponse(req, response);
  return response.headers;
}

function preflight(origin = 'https://app.example', method = 'PUT', extra: IncomingHttpHeaders = {}): ContainerRequestContext {
  return request('OPTIONS', { origin, 'access-control-request-method': method, ...extra });
}

const SPEC_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, DELETE',
  'access-control-allow-headers': 'X-API-Key, Content-Type',
};

describe('CorsFilter', () => {
  it('is a pre-matching filter at HEADER_DECORATOR', () => {
    const meta = findClassMeta(CorsFilter);
    expect(meta?.preMatching).toBe(true);
    expect(meta?.priority).toBe(Priorities.HEADER_DECORATOR);
  });

  describe('defaults: the three headers of the service spec', () => {
    it('adds exactly those headers to a response, with no Vary', () => {
      const headers = respond(new CorsFilter(), request('GET', { origin: 'https://app.example' }));
      expect(headers).toEqual(SPEC_HEADERS);
    });

    it('adds them unconditionally: no Origin, error statuses, other methods', () => {
      const filter = new CorsFilter();
      expect(respond(filter, request('GET'))).toEqual(SPEC_HEADERS);
      expect(respond(filter, request('DELETE'), new Response(500))).toEqual(SPEC_HEADERS);
      expect(respond(filter, request('POST'), new Response(401, undefined, { 'www-authenticate': 'API-Key' }))).toEqual({
        'www-authenticate': 'API-Key',
        ...SPEC_HEADERS,
      });
    });

    it('answers a preflight before matching with 204 and the three headers', () => {
      const ctx = preflight();
      new CorsFilter().filterRequest(ctx);
      expect(ctx.abortResponse?.status).toBe(204);
      expect(ctx.abortResponse?.headers).toEqual(SPEC_HEADERS);
      expect(ctx.abortResponse?.hasEntity()).toBe(false);
    });
  });

  describe('preflight detection', () => {
    it.each<[string, string, IncomingHttpHeaders]>([
      ['OPTIONS without Origin', 'OPTIONS', { 'access-control-request-method': 'PUT' }],
      ['OPTIONS without Access-Control-Request-Method', 'OPTIONS', { origin: 'https://app.example' }],
      ['plain OPTIONS', 'OPTIONS', {}],
      ['GET with preflight headers', 'GET', { origin: 'https://app.example', 'access-control-request-method': 'PUT' }],
    ])('%s is left to the pipeline', (_name, method, headers) => {
      const ctx = request(method, headers);
      new CorsFilter().filterRequest(ctx);
      expect(ctx.abortResponse).toBeUndefined();
    });

    it('adds Access-Control-Max-Age to preflights only', () => {
      const filter = new CorsFilter({ maxAge: 600 });
      const ctx = preflight();
      filter.filterRequest(ctx);
      expect(ctx.abortResponse?.headers['access-control-max-age']).toBe('600');
      expect(respond(filter, request('GET'))['access-control-max-age']).toBeUndefined();
    });

    it('answers a preflight for a method outside the list with the list: the browser refuses it', () => {
      const ctx = preflight('https://app.example', 'PATCH');
      new CorsFilter().filterRequest(ctx);
      expect(ctx.abortResponse?.status).toBe(204);
      expect(ctx.abortResponse?.headers['access-control-allow-methods']).toBe('GET, POST, PUT, DELETE');
    });

    it('is idempotent when the response filter later runs on the preflight answer', () => {
      const filter = new CorsFilter({ allowOrigin: ['https://app.example'] });
      const ctx = preflight();
      filter.filterRequest(ctx);
      filter.filterResponse(ctx, ctx.abortResponse!);
      expect(ctx.abortResponse?.headers.vary).toBe('Origin');
      expect(ctx.abortResponse?.headers['access-control-allow-origin']).toBe('https://app.example');
    });
  });

  describe('origin list', () => {
    const filter = new CorsFilter({ allowOrigin: ['https://app.example', 'http://localhost:3000'] });

    it('echoes an allowed Origin and adds Vary: Origin', () => {
      const headers = respond(filter, request('GET', { origin: 'http://localhost:3000' }));
      expect(headers).toEqual({
        vary: 'Origin',
        'access-control-allow-origin': 'http://localhost:3000',
        'access-control-allow-methods': 'GET, POST, PUT, DELETE',
        'access-control-allow-headers': 'X-API-Key, Content-Type',
      });
    });

    it('matches scheme and host case-insensitively and echoes the request value', () => {
      const headers = respond(filter, request('GET', { origin: 'HTTPS://App.Example' }));
      expect(headers['access-control-allow-origin']).toBe('HTTPS://App.Example');
    });

    it.each([
      ['another site', 'https://evil.example'],
      ['another port', 'https://app.example:8443'],
      ['another scheme', 'http://app.example'],
      ['a suffix trick', 'https://app.example.evil.example'],
      ['the null origin', 'null'],
    ])('adds no CORS headers for %s, but still Vary: Origin', (_name, origin) => {
      expect(respond(filter, request('GET', { origin }))).toEqual({ vary: 'Origin' });
    });

    it('adds only Vary: Origin when the request has no Origin', () => {
      expect(respond(filter, request('GET'))).toEqual({ vary: 'Origin' });
    });

    it('answers a preflight from a disallowed origin with 204 and no CORS headers (documented choice)', () => {
      const ctx = preflight('https://evil.example');
      filter.filterRequest(ctx);
      expect(ctx.abortResponse?.status).toBe(204);
      expect(ctx.abortResponse?.headers).toEqual({ vary: 'Origin' });
    });

    it('accepts a single origin string', () => {
      const one = new CorsFilter({ allowOrigin: 'https://app.example' });
      expect(respond(one, request('GET', { origin: 'https://app.example' }))['access-control-allow-origin']).toBe('https://app.example');
      expect(respond(one, request('GET', { origin: 'https://b.example' }))['access-control-allow-origin']).toBeUndefined();
    });

    it('appends Origin to an existing Vary', () => {
      const response = new Response(200, 'x', { vary: 'Accept-Encoding' });
      respond(filter, request('GET', { origin: 'https://app.example' }), response);
      expect(response.headers.vary).toBe('Accept-Encoding, Origin');
    });
  });

  it('asks an origin predicate', () => {
    const filter = new CorsFilter({ allowOrigin: (o) => o.endsWith('.corp.example') });
    expect(respond(filter, request('GET', { origin: 'https://a.corp.example' }))['access-control-allow-origin']).toBe(
      'https://a.corp.example',
    );
    expect(respond(filter, request('GET', { origin: 'https://a.example' }))).toEqual({ vary: 'Origin' });
  });

  it('sends credentials only with an echoed origin', () => {
    const filter = new CorsFilter({ allowOrigin: ['https://app.example'], allowCredentials: true, maxAge: 60 });
    const headers = respond(filter, request('GET', { origin: 'https://app.example' }));
    expect(headers['access-control-allow-credentials']).toBe('true');
    expect(respond(filter, request('GET', { origin: 'https://evil.example' }))['access-control-allow-credentials']).toBeUndefined();
    const ctx = preflight();
    filter.filterRequest(ctx);
    expect(ctx.abortResponse?.headers).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE',
      'access-control-allow-headers': 'X-API-Key, Content-Type',
      'access-control-max-age': '60',
    });
  });

  it('uses custom lists, adds Expose-Headers to responses, and omits empty lists', () => {
    const filter = new CorsFilter({ allowMethods: ['GET'], allowHeaders: [], exposeHeaders: ['X-Total-Count', 'Location'] });
    expect(respond(filter, request('GET'))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET',
      'access-control-expose-headers': 'X-Total-Count, Location',
    });
  });

  it.each<[string, ConstructorParameters<typeof CorsFilter>[0], ErrorConstructor, string]>([
    [
      'credentials with *',
      { allowCredentials: true },
      TypeError,
      'CORS allowCredentials needs an explicit allowOrigin list or predicate, not "*"',
    ],
    ['* inside a list', { allowOrigin: ['https://a.example', '*'] }, TypeError, 'CORS allowOrigin: use "*" alone, not inside a list'],
    [
      'an origin with a path',
      { allowOrigin: ['https://a.example/'] },
      TypeError,
      'CORS allowOrigin: "https://a.example/" is not an origin (scheme://host[:port])',
    ],
    ['a bare host', { allowOrigin: 'a.example' }, TypeError, 'CORS allowOrigin: "a.example" is not an origin (scheme://host[:port])'],
    ['a negative maxAge', { maxAge: -1 }, RangeError, 'CORS maxAge must be a non-negative integer of seconds, got -1'],
    ['a fractional maxAge', { maxAge: 1.5 }, RangeError, 'CORS maxAge must be a non-negative integer of seconds, got 1.5'],
  ])('rejects %s when constructed', (_name, options, errorClass, message) => {
    let thrown: unknown;
    try {
      new CorsFilter(options);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(errorClass);
    expect((thrown as Error).message).toBe(message);
  });
});

describe('appendVary', () => {
  it.each<[OutgoingHeaders, string, string | undefined]>([
    [{}, 'Origin', 'Origin'],
    [{ vary: 'Accept-Encoding' }, 'Origin', 'Accept-Encoding, Origin'],
    [{ vary: 'accept-encoding, ORIGIN' }, 'Origin', 'accept-encoding, ORIGIN'],
    [{ vary: '*' }, 'Origin', '*'],
    [{ vary: ['Accept', 'Accept-Language'] }, 'Origin', 'Accept, Accept-Language, Origin'],
    [{ vary: '' }, 'Origin', 'Origin'],
    [{ vary: 'Origin-Agent' }, 'Origin', 'Origin-Agent, Origin'],
  ])('%j + %s -> %s', (headers, name, expected) => {
    appendVary(headers, name);
    expect(headers.vary).toBe(expected);
  });
});

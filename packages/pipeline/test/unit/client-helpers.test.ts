/** The client's pure parts: parameter text, URIs of targets, Retry-After and backoff, the idempotency rule, the builder. */
import { describe, expect, it } from 'vitest';
import { Client, ClientBuilder } from '../../src/client/index.js';
import { paramText } from '../../src/client/params.js';
import { backoffMs, repeatable, retryAfterMs, retryPolicy } from '../../src/client/retry.js';
import { splitUri } from '../../src/client/transport.js';
import { transportFailure } from '../../src/client/failures.js';
import { ClientTimeoutError } from '../../src/client/index.js';

describe('parameter text', () => {
  it('strings, numbers, bigints, booleans, dates (ISO 8601), objects with their own toString', () => {
    class Id {
      constructor(readonly v: number) {}
      toString(): string {
        return `id-${this.v}`;
      }
    }
    expect([paramText('a b', 'p'), paramText(1.5, 'p'), paramText(10n, 'p'), paramText(false, 'p')]).toEqual(['a b', '1.5', '10', 'false']);
    expect(paramText(new Date(Date.UTC(2020, 0, 2)), 'p')).toBe('2020-01-02T00:00:00.000Z');
    expect(paramText(new Id(3), 'p')).toBe('id-3');
  });

  it('refuses what has no text form, naming the parameter', () => {
    expect(() => paramText({ a: 1 }, "query 'q'")).toThrow(/^query 'q': a Object has no text form/);
    expect(() => paramText(new Date(Number.NaN), "query 'since'")).toThrow(/an invalid Date/);
    expect(() => paramText(Symbol('s'), 'p')).toThrow(/has no text form/);
  });
});

describe('WebTarget URIs', () => {
  const client = new Client({ baseUrl: 'http://api.test/v1/' });

  it('paths join with one slash; template values and query values are encoded whole', () => {
    const t = client
      .target('users')
      .path('/{id}/files/')
      .resolveTemplate('id', 'a/b c')
      .queryParam('q', '{x}', '100%', 'a&b=c')
      .queryParam('n', 1, [2, 3]);
    expect(t.getUri()).toBe('http://api.test/v1/users/a%2Fb%20c/files/?q=%7Bx%7D&q=100%25&q=a%26b%3Dc&n=1&n=2&n=3');
  });

  it('targets are immutable; an unbound variable fails naming it', () => {
    const base = client.target('users/{id}');
    base.resolveTemplate('id', 1);
    expect(() => base.getUri()).toThrow(/no value for template variable "id"/);
    expect(base.resolveTemplates({ id: 7 }).getUri()).toBe('http://api.test/v1/users/7');
  });

  it('absolute targets ignore the base; relative ones need it', () => {
    expect(client.target('https://other.test/x?y=1').getUri()).toBe('https://other.test/x?y=1');
    expect(() => new Client().target('users')).toThrow(/a relative target needs the client's baseUrl option/);
  });

  it('splitUri gives undici its origin and path (query kept, fragment dropped)', () => {
    expect(splitUri('http://h:8080/a/b?c=d#e')).toEqual({ origin: 'http://h:8080', path: '/a/b?c=d' });
    expect(splitUri('https://h')).toEqual({ origin: 'https://h', path: '/' });
    expect(splitUri('http://h?x=1')).toEqual({ origin: 'http://h', path: '/?x=1' });
    expect(() => splitUri('ftp://h/x')).toThrow(/absolute http: or https: URI/);
  });
});

describe('retries', () => {
  it('Retry-After: delay-seconds or an HTTP-date; junk is ignored', () => {
    const now = Date.UTC(2024, 0, 1, 0, 0, 0);
    expect(retryAfterMs({ 'retry-after': '0' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 5000).toUTCString() }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': new Date(now - 5000).toUTCString() }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });

  it('backoff: full jitter under base * 2^n, capped at maxDelay', () => {
    const policy = retryPolicy({ maxRetries: 5, baseDelay: 100, maxDelay: 1000 })!;
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(policy, n, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(retryPolicy({ maxRetries: 0 })).toBeUndefined();
    expect(() => retryPolicy({ baseDelay: 10, maxDelay: 5 })).toThrow(/retry\.maxDelay \(5\) must be at least retry\.baseDelay \(10\)/);
  });

  it('only idempotent methods, or an Idempotency-Key, with a body that can be sent again', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].every((m) => repeatable(m, {}, undefined))).toBe(true);
    expect(repeatable('POST', {}, '{}')).toBe(false);
    expect(repeatable('PATCH', { 'idempotency-key': 'k' }, Buffer.from('x'))).toBe(true);
    expect(repeatable('PUT', {}, (async function* () {})())).toBe(false);
  });
});

describe('transport failures as client errors', () => {
  const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'CLIENT_CONNECT_TIMEOUT'],
    ['UND_ERR_HEADERS_TIMEOUT', 'CLIENT_HEADERS_TIMEOUT'],
    ['UND_ERR_BODY_TIMEOUT', 'CLIENT_BODY_TIMEOUT'],
    ['ECONNREFUSED', 'CLIENT_UNREACHABLE'],
    ['ENOTFOUND', 'CLIENT_UNREACHABLE'],
    ['ECONNRESET', 'CLIENT_CONNECTION_FAILED'],
    ['UND_ERR_SOCKET', 'CLIENT_CONNECTION_FAILED'],
    ['HPE_INVALID_CONSTANT', 'CLIENT_CONNECTION_FAILED'],
    ['UND_ERR_DESTROYED', 'CLIENT_CLOSED'],
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'CLIENT_RESPONSE_TOO_LARGE'],
    ['SOMETHING_ELSE', 'CLIENT_REQUEST_FAILED'],
  ])('%s is %s, with the original as cause', (code, expected) => {
    const original = coded(code);
    const e = transportFailure(original, { connectTimeout: 100, headersTimeout: 200, bodyTimeout: 300 });
    expect(e).toMatchObject({ code: expected, cause: original });
  });

  it('a connect timeout names its setting; codes are found through causes and AggregateErrors; aborts pass through', () => {
    const connect = transportFailure(coded('UND_ERR_CONNECT_TIMEOUT'), { connectTimeout: 100 });
    expect(connect).toBeInstanceOf(ClientTimeoutError);
    expect(connect).toMatchObject({ phase: 'connect', timeoutMs: 100 });
    expect(transportFailure(new AggregateError([coded('ECONNREFUSED')]), {})).toMatchObject({ code: 'CLIENT_UNREACHABLE' });
    expect(transportFailure(new Error('wrapped', { cause: coded('ECONNRESET') }), {})).toMatchObject({ code: 'CLIENT_CONNECTION_FAILED' });
    const abort = new DOMException('stop', 'AbortError');
    expect(transportFailure(abort, {})).toBe(abort);
  });
});

describe('ClientBuilder', () => {
  it('builds a client with its options and providers (checked at build)', async () => {
    const client = ClientBuilder.newBuilder().baseUrl('http://b.test').connectTimeout(10).deadline(100).header('User-Agent', 'x').build();
    expect(client.baseUrl).toBe('http://b.test');
    await client.close();
    expect(() => ClientBuilder.newBuilder().register({ nothing: true }).build()).toThrow(/implements no client provider contract/);
    expect(() => ClientBuilder.newBuilder().deadline(-1).build()).toThrow(/deadline must be a positive integer/);
  });
});

import { describe, expect, it } from 'vitest';
import { CONNECTION_HEADERS, dropConnectionHeaders } from '../../src/core/context/http-version.js';

describe('dropConnectionHeaders', () => {
  it('removes every connection-specific field of RFC 9113 §8.2.2 and keeps the others', () => {
    const headers: Record<string, unknown> = { 'content-type': 'application/json', 'content-length': 2, date: 'x', etag: '"1"' };
    for (const name of CONNECTION_HEADERS) headers[name] = name === 'connection' ? 'close' : 'x';
    dropConnectionHeaders(headers);
    for (const name of CONNECTION_HEADERS) expect(Object.hasOwn(headers, name), name).toBe(false);
    expect(headers).toEqual({ 'content-type': 'application/json', 'content-length': 2, date: 'x', etag: '"1"' });
  });

  it('leaves headers without any of them as they are', () => {
    const headers: Record<string, unknown> = { 'content-type': 'text/plain', 'content-length': 0 };
    dropConnectionHeaders(headers);
    expect(headers).toEqual({ 'content-type': 'text/plain', 'content-length': 0 });
  });
});

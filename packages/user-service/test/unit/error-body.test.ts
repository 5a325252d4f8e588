/**
 * serviceErrorBody in isolation: the SPEC "Errors" fields and its two documented exceptions; the
 * problem details the service answers when Accept prefers them.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, InternalServerError, NotFoundError, ServiceUnavailableError, WebApplicationError } from '@jaxrs-node/pipeline';
import { createRequestContext } from '@jaxrs-node/pipeline/testing';
import { InvalidTokenError } from '../../src/domain/auth/bearer-tokens.js';
import { serviceErrorBody, serviceErrorEntity, serviceProblemBody } from '../../src/http/error-body.js';

type Body = { timestamp: string; status: number; error: string; message: string; path: string; errors: unknown[] };
const body = (error: WebApplicationError, url = '/api/users/9?x=1') => serviceErrorBody(error, createRequestContext({ url })) as Body;

describe('serviceErrorBody', () => {
  it('has exactly timestamp, status, error (reason phrase), message, path and errors', () => {
    const b = body(new NotFoundError('User 9 not found'));
    expect(Object.keys(b).sort()).toEqual(['error', 'errors', 'message', 'path', 'status', 'timestamp']);
    expect(b).toMatchObject({ status: 404, error: 'Not Found', message: 'User 9 not found', path: '/api/users/9', errors: [] });
    expect(b.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/); // ISO 8601, whole seconds
    expect(Math.abs(Date.parse(b.timestamp) - Date.now())).toBeLessThan(5_000);
  });

  it('lists every violation of a validation failure in errors', () => {
    const details = [
      { field: 'email', message: 'is required' },
      { field: 'age', message: 'must be >= 0' },
    ];
    expect(body(new BadRequestError('Validation failed', { details }))).toMatchObject({
      status: 400,
      error: 'Bad Request',
      errors: details,
    });
  });

  it('answers errors: [] when details are absent or not an array', () => {
    expect(body(new BadRequestError('x', { details: { field: 'email' } })).errors).toEqual([]);
    expect(body(new BadRequestError('x', { details: 'text' })).errors).toEqual([]);
  });

  it('uses invalid_token as error for a rejected bearer token (RFC 6750)', () => {
    expect(body(new InvalidTokenError('expired'))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      message: 'The access token is invalid or expired',
    });
  });

  it.each([
    new InternalServerError('connection string postgres://u:p@db leaked'),
    new ServiceUnavailableError('upstream 10.0.0.5 refused'),
    new WebApplicationError(502, 'secret detail'),
  ])('never shows the message of a 5xx (%s)', (error) => {
    const b = body(error);
    expect(b.status).toBe(error.status);
    expect(b.message).toBe(error.reason);
    expect(b.error).toBe(error.reason);
    expect(JSON.stringify(b)).not.toContain(error.message);
  });
});

describe('serviceProblemBody and serviceErrorEntity', () => {
  const violations = [
    { field: 'query.size', message: "'abc' is not an integer", value: 'abc' },
    { field: 'body.email', message: 'must be a well-formed email address' },
  ];

  it('is RFC 9457 problem details with the items named as in the error body', () => {
    const p = serviceProblemBody(
      new BadRequestError('Validation failed', { code: 'PIPE_VALIDATION', details: violations }),
      createRequestContext({ url: '/api/users?size=abc' }),
    );
    expect(p).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'Validation failed',
      instance: '/api/users',
      code: 'PIPE_VALIDATION',
      errors: [
        { field: 'size', message: "'abc' is not an integer", value: 'abc' },
        { field: 'email', message: 'must be a well-formed email address' },
      ],
    });
    expect(serviceProblemBody(new InternalServerError('secret'), createRequestContext({ url: '/x' }))).not.toHaveProperty('detail');
  });

  it.each([
    ['application/problem+json, application/json;q=0.9', 'application/problem+json', 'title'],
    ['application/json', 'application/json', 'timestamp'],
    [undefined, 'application/json', 'timestamp'],
  ])('Accept %j: %s', (accept, contentType, key) => {
    const request = createRequestContext({ url: '/api/users/9', headers: accept === undefined ? {} : { accept } });
    const { body: entity, headers } = serviceErrorEntity(new NotFoundError('User 9 not found'), request);
    expect(headers).toEqual({ 'content-type': contentType, vary: 'Accept' });
    expect(entity).toHaveProperty(key);
  });
});

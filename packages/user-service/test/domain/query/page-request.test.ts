/**
 * Page requests are validated exactly once: the HTTP layer's parsePageQuery result is trusted by
 * UserService.page as is, while any other input (jobs, tests, look-alike objects) is validated by
 * the service itself and refused with the documented 400 validation error.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '@jaxrs-node/pipeline';
import { createRequestContext } from '@jaxrs-node/pipeline/testing';
import {
  isPageRequest,
  normalizePageRequest,
  parsePageQuery,
  type PageRequest,
  type PageRequestInput,
} from '../../../src/domain/query/paging.js';
import { UserService } from '../../../src/domain/users/service.js';
import { serviceErrorBody } from '../../../src/http/error-body.js';
import { FakeRecordStore, fieldsOf, thrown } from '../fake-store.js';

async function fiveUsers(): Promise<UserService> {
  const users = new UserService(new FakeRecordStore());
  for (const lastName of ['Eve', 'Bo', 'Di', 'Al', 'Cy']) {
    await users.create({ email: `${lastName.toLowerCase()}@example.com`, firstName: 'Xx', lastName });
  }
  return users;
}

describe('validated page requests', () => {
  it('are frozen and recognised, whether parsed from a query or normalised from input', () => {
    for (const request of [parsePageQuery({ size: '5', sort: 'age,desc' }), normalizePageRequest({ size: 5, sort: 'age,desc' })]) {
      expect(isPageRequest(request)).toBe(true);
      expect(Object.isFrozen(request)).toBe(true);
      expect(Object.isFrozen(request.sort)).toBe(true);
      // Frozen, so a validated request can not be turned into an invalid one after the check.
      expect(() => {
        (request as { size: number }).size = 5000;
      }).toThrow(TypeError);
      expect(request).toEqual({ page: 0, size: 5, sort: { field: 'age', direction: 'desc' } });
    }
  });

  it('pass through normalizePageRequest untouched (no second validation)', () => {
    const parsed = parsePageQuery({ page: '2', size: '3', sort: 'lastName,desc' });
    expect(normalizePageRequest(parsed)).toBe(parsed);
    const normalised = normalizePageRequest({ page: 1 });
    expect(normalizePageRequest(normalised)).toBe(normalised);
  });

  it('are not forged by a plain object of the same shape', () => {
    const lookAlike = { page: 0, size: 20, sort: { field: 'id', direction: 'asc' } };
    expect(isPageRequest(lookAlike)).toBe(false);
    expect(isPageRequest(null)).toBe(false);
    expect(isPageRequest('page=0')).toBe(false);
    expect(normalizePageRequest(lookAlike as PageRequestInput)).not.toBe(lookAlike);
  });

  it('give the same page as the equivalent raw input passed to the service', async () => {
    const users = await fiveUsers();
    for (const [query, input] of [
      [{}, {}],
      [
        { page: '1', size: '2', sort: 'lastName,desc' },
        { page: 1, size: 2, sort: 'lastName,desc' },
      ],
      [
        { size: '3', sort: 'email' },
        { size: 3, sort: { field: 'email', direction: 'asc' } },
      ],
      [
        { page: '0', size: '2', sort: 'id,DESC' },
        { size: 2, sort: 'id,desc' },
      ],
    ] as const) {
      expect(users.page(parsePageQuery(query))).toEqual(users.page(input as PageRequestInput));
    }
    expect(users.page(parsePageQuery({ size: '2', sort: 'lastName' })).content.map((u) => u.lastName)).toEqual(['Al', 'Bo']);
  });
});

describe('UserService.page called directly (no HTTP layer in front)', () => {
  it('refuses invalid input with the documented 400 validation error naming every parameter', async () => {
    const users = await fiveUsers();
    const error = thrown(() => users.page({ page: -1, size: 0, sort: 'password,asc' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, reason: 'Bad Request', message: 'Validation failed', code: 'VALIDATION_FAILED' });
    expect(fieldsOf(error)).toEqual(['page', 'size', 'sort']);
    // Rendered as the SPEC's error body: timestamp, status 400, error "Bad Request", non-empty errors.
    const body = serviceErrorBody(error, createRequestContext({ url: '/api/users?page=-1' })) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, error: 'Bad Request', path: '/api/users' });
    expect(typeof body.timestamp).toBe('string');
    expect(body.errors).toEqual([
      { field: 'page', message: expect.any(String) },
      { field: 'size', message: expect.any(String) },
      { field: 'sort', message: expect.any(String) },
    ]);
  });

  it.each<[string, unknown, string[]]>([
    ['a negative page', { page: -1 }, ['page']],
    ['a fractional page', { page: 0.5 }, ['page']],
    ['a size above the maximum', { size: 1001 }, ['size']],
    ['a NaN size', { size: Number.NaN }, ['size']],
    ['an unknown sort field', { sort: 'password' }, ['sort']],
    ['a bad SortSpec direction', { sort: { field: 'id', direction: 'up' } }, ['sort']],
    // Shaped like a validated request but not made by the validators: still checked.
    ['a look-alike of a validated request', { page: 0, size: 5000, sort: { field: 'id', direction: 'asc' } }, ['size']],
  ])('refuses %s', async (_name, input, fields) => {
    const users = await fiveUsers();
    const error = thrown(() => users.page(input as PageRequest));
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual(fields);
  });
});

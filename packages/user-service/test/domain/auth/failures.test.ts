/** The service's failed-authentication limits (the library's FailedAuthLimiter, as server.ts makes it): per client and per account, checked before any credential. */
import { describe, expect, it } from 'vitest';
import { FailedAuthLimiter as AuthFailureGuard, NotAuthorizedError, ServiceUnavailableError } from '@jaxrs-node/pipeline';

const wrong = (): never => {
  throw new NotAuthorizedError('Basic');
};
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: { status: number }) => String(e.status),
  );

describe('FailedAuthLimiter', () => {
  it('refuses the attempt after `limit` failures of one client with 429 and Retry-After, before checking it', async () => {
    const guard = new AuthFailureGuard({ limit: 3 });
    const keys = guard.keys('10.0.0.1', 'admin');
    for (let i = 0; i < 3; i++) expect(await outcome(guard.attempt(keys, wrong))).toBe('401');
    let checked = false;
    const refused = await guard
      .attempt(keys, () => {
        checked = true;
        return 'principal';
      })
      .catch((e: unknown) => e);
    expect(checked).toBe(false);
    expect(refused).toMatchObject({ status: 429, headers: { 'retry-after': expect.stringMatching(/^[1-9]\d*$/) } });
  });

  it('counts per account too: another address guessing the same account is refused', async () => {
    const guard = new AuthFailureGuard({ limit: 2 });
    expect(await outcome(guard.attempt(guard.keys('10.0.0.1', 'admin'), wrong))).toBe('401');
    expect(await outcome(guard.attempt(guard.keys('10.0.0.2', 'admin'), wrong))).toBe('401');
    expect(await outcome(guard.attempt(guard.keys('10.0.0.3', 'admin'), wrong))).toBe('429');
    expect(await outcome(guard.attempt(guard.keys('10.0.0.3', 'other'), wrong))).toBe('401');
  });

  it('does not count successes, nor errors that are not the client guessing (503 while hashing is busy)', async () => {
    const guard = new AuthFailureGuard({ limit: 1 });
    const keys = guard.keys('10.0.0.9');
    for (let i = 0; i < 5; i++) expect(await outcome(guard.attempt(keys, () => 'principal'))).toBe('ok');
    const busy = (): never => {
      throw new ServiceUnavailableError('busy');
    };
    for (let i = 0; i < 5; i++) expect(await outcome(guard.attempt(keys, busy))).toBe('503');
    expect(await outcome(guard.attempt(keys, wrong))).toBe('401');
    expect(await outcome(guard.attempt(keys, wrong))).toBe('429');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/09-exception-mapper/app.js';
import { listen, send, type Running } from './helpers/http.js';

describe('09 ExceptionMapper: domain errors mapped by nearest type', () => {
  let server: Running;
  const logged: unknown[] = [];
  beforeAll(async () => {
    server = await listen(createApp({ logger: (error) => logged.push(error) }));
  });
  afterAll(() => server.close());

  const withdraw = (id: string, amount: number) =>
    send(server.url, `/api/accounts/${id}/withdrawals`, { method: 'POST', body: { amount } });

  it('success needs no mapper', async () => {
    const r = await withdraw('alice', 30);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ id: 'alice', balance: 70 });
  });

  it('AccountNotFoundError → its own mapper: 404 problem+json', async () => {
    const r = await send(server.url, '/api/accounts/nope');
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe('application/problem+json');
    expect(r.json()).toEqual({
      type: 'about:blank',
      title: 'Account not found',
      status: 404,
      detail: 'account nope does not exist',
      instance: '/api/accounts/nope',
      accountId: 'nope',
    });
  });

  it('InsufficientFundsError → 409', async () => {
    const r = await withdraw('alice', 500);
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({ title: 'Insufficient funds', requested: 500 });
  });

  it("OverdraftLimitError has no mapper: its parent InsufficientFundsError's is the nearest", async () => {
    const r = await withdraw('alice', 5000);
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({ title: 'Insufficient funds', detail: 'withdrawing 5000 would pass the overdraft limit of 1000' });
  });

  it('AccountFrozenError falls back to the DomainError mapper: 422', async () => {
    const r = await withdraw('frozen', 1);
    expect(r.status).toBe(422);
    expect(r.json()).toMatchObject({ title: 'Business rule violated', error: 'AccountFrozenError' });
  });

  it('an unexpected error is a 500 that hides its message; the cause goes to the logger', async () => {
    const r = await send(server.url, '/api/accounts/alice/audit');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ status: 500, error: 'Internal Server Error', code: 'HTTP_500' });
    expect(r.text).not.toContain('not configured');
    expect(logged.some((e) => e instanceof TypeError && e.message.startsWith('audit log'))).toBe(true);
  });

  it('a validation error is a 400 from the built-in mapping, not a domain error', async () => {
    const r = await withdraw('alice', -5);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ code: 'PIPE_VALIDATION', errors: [{ field: 'body.amount', message: 'must be greater than 0' }] });
  });

  it('in-process: the same mapping', async () => {
    const r = await createApp().inject({ method: 'POST', url: '/api/accounts/nobody/withdrawals', body: { amount: 1 } });
    expect(r.status).toBe(404);
  });
});

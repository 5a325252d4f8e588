import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/**
 * `Idempotency-Key` on the three creating POSTs, black-box: a retry gets the first answer (same
 * status, Location and body, marked `Idempotent-Replayed: true`) and writes nothing; the same key
 * with another body is 422; concurrent retries write once; the answer survives a restart.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  removeDir(server.dataDir);
});

const keyed = (key: string, body: unknown) => ({ headers: { 'idempotency-key': key }, body });
const user = (email: string) => ({ email, firstName: 'Idem', lastName: 'Potent' });

async function countUsers(email: string): Promise<number> {
  return (await http(server.url, 'GET', `/api/users?email=${encodeURIComponent(email)}`)).json<unknown[]>().length;
}

describe('Idempotency-Key', () => {
  it('POST /api/users: the retry replays the first answer and creates nothing', async () => {
    const first = await http(server.url, 'POST', '/api/users', keyed('users-1', user('idem1@example.com')));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await http(server.url, 'POST', '/api/users', keyed('users-1', user('idem1@example.com')));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.json()).toEqual(first.json());
    expect(await countUsers('idem1@example.com')).toBe(1);
  });

  it('the same key with a different body is 422 in the error body, and writes nothing', async () => {
    await http(server.url, 'POST', '/api/users', keyed('users-2', user('idem2@example.com')));
    const reused = await http(server.url, 'POST', '/api/users', keyed('users-2', user('other2@example.com')));
    expect(reused.status).toBe(422);
    expect(reused.json()).toMatchObject({ status: 422, message: expect.stringContaining('Idempotency-Key') });
    expect(await countUsers('other2@example.com')).toBe(0);
  });

  it('a malformed key is 400', async () => {
    const bad = await http(server.url, 'POST', '/api/users', keyed('x'.repeat(256), user('idem3@example.com')));
    expect(bad.status).toBe(400);
    expect(await countUsers('idem3@example.com')).toBe(0);
  });

  it('ten concurrent requests with one key create one user and all get its answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => http(server.url, 'POST', '/api/users', keyed('users-4', user('idem4@example.com')))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.json<{ id: number }>().id)).size).toBe(1);
    expect(await countUsers('idem4@example.com')).toBe(1);
  });

  it('POST /api/users/<id>/orders: the retry replays the order', async () => {
    const owner = (await http(server.url, 'POST', '/api/users', { body: user('buyer.idem@example.com') })).json<{ id: number }>();
    const order = { items: [{ productId: 1, quantity: 2 }] };
    const first = await http(server.url, 'POST', `/api/users/${owner.id}/orders`, keyed('order-1', order));
    const retry = await http(server.url, 'POST', `/api/users/${owner.id}/orders`, keyed('order-1', order));
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect((await http(server.url, 'GET', `/api/users/${owner.id}/orders`)).json<unknown[]>()).toHaveLength(1);
    // The key names one operation: the same key on another user's orders is another request.
    const other = (await http(server.url, 'POST', '/api/users', { body: user('buyer2.idem@example.com') })).json<{ id: number }>();
    expect((await http(server.url, 'POST', `/api/users/${other.id}/orders`, keyed('order-1', order))).status).toBe(422);
  });

  it('POST /api/async/users: the retry replays the 202 and runs no second job', async () => {
    const items = [user('job.idem@example.com')];
    const first = await http(server.url, 'POST', '/api/async/users', keyed('job-1', items));
    const retry = await http(server.url, 'POST', '/api/async/users', keyed('job-1', items));
    expect([first.status, retry.status]).toEqual([202, 202]);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.json<{ id: number }>().id).toBe(first.json<{ id: number }>().id);
    const status = async (): Promise<string> =>
      (await http(server.url, 'GET', new URL(first.headers.location as string).pathname)).json<{ status: string }>().status;
    await until(async () => (await status()) === 'COMPLETED', 'the job to complete', 10_000);
    expect(await countUsers('job.idem@example.com')).toBe(1);
  });

  it('the stored answer survives a restart', async () => {
    const first = await http(server.url, 'POST', '/api/users', keyed('users-restart', user('idem.restart@example.com')));
    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startServer({ dataDir: server.dataDir });
    const retry = await http(server.url, 'POST', '/api/users', keyed('users-restart', user('idem.restart@example.com')));
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await countUsers('idem.restart@example.com')).toBe(1);
  });
});

/**
 * Black-box tests of asynchronous user creation: 202 + Location, polling the job until COMPLETED
 * (bounded), the latest-job status endpoint, what counts as a valid body, and that a job's record
 * survives a restart on the same DATA_DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

interface JobBody {
  id: number;
  status: string;
  total: number;
  processed: number;
  created: number[];
  failed: { index: number; errors: unknown[] }[];
  completedAt?: string;
}

/** Polls `path` until its `status` is final, at most `timeoutMs`; every answer must be a 200. */
async function pollUntilDone(server: RunningServer, path: string, timeoutMs = 5000): Promise<JobBody> {
  let job: JobBody | undefined;
  const finished = async (): Promise<boolean> => {
    const r = await http(server.url, 'GET', path);
    expect(r.status).toBe(200);
    job = r.json<JobBody>();
    return job.status === 'COMPLETED' || job.status === 'FAILED';
  };
  await until(finished, `job at ${path} to finish`, timeoutMs);
  return job!;
}

/** The path of an absolute Location (the port changes across restarts). */
function pathOf(location: unknown): string {
  expect(typeof location).toBe('string');
  return new URL(location as string).pathname;
}

const people = (tag: string) => [
  { email: `${tag}-1@async.example`, firstName: 'Ann', lastName: 'One', age: 21 },
  { email: `${tag}-2@async.example`, firstName: 'Ben', lastName: 'Two', age: 42 },
  { email: `${tag}-3@async.example`, firstName: 'Cid', lastName: 'Three' },
];

describe('async user creation (black box)', () => {
  let server: RunningServer;
  let firstJob: { path: string; job: JobBody } | undefined;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('GET /api/async/users/status reports COMPLETED before any job ran, so pollers stop', async () => {
    const r = await http(server.url, 'GET', '/api/async/users/status');
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ status: 'COMPLETED' });
  });

  it('accepts an array of 3 users with 202 + Location and completes them', async () => {
    const r = await http(server.url, 'POST', '/api/async/users', { body: people('first') });
    expect(r.status).toBe(202);
    const path = pathOf(r.headers.location);
    expect(path).toMatch(/^\/api\/async\/users\//);
    expect(r.json()).toMatchObject({ total: 3 });

    const job = await pollUntilDone(server, path);
    expect(job).toMatchObject({ status: 'COMPLETED', total: 3, processed: 3, failed: [] });
    expect(job.created).toHaveLength(3);
    firstJob = { path, job };

    const status = await http(server.url, 'GET', '/api/async/users/status');
    expect(status.json()).toMatchObject({ status: 'COMPLETED', id: job.id, total: 3 });

    for (const [i, id] of job.created.entries()) {
      const u = await http(server.url, 'GET', `/api/users/${id}`);
      expect(u.status).toBe(200);
      expect(u.json()).toMatchObject({ id, email: people('first')[i]!.email });
    }
  });

  it('validates items like POST /api/users: invalid items are listed in failed, valid ones created', async () => {
    const body = [people('mixed')[0], { email: 'not-an-email', firstName: 'X', lastName: '' }, people('mixed')[1]];
    const r = await http(server.url, 'POST', '/api/async/users', { body });
    expect(r.status).toBe(202);
    const job = await pollUntilDone(server, pathOf(r.headers.location));
    expect(job).toMatchObject({ status: 'COMPLETED', total: 3, processed: 3 });
    expect(job.created).toHaveLength(2);
    expect(job.failed).toEqual([expect.objectContaining({ index: 1 })]);
    const search = await http(server.url, 'GET', '/api/users/search?email=mixed-');
    expect(search.json()).toHaveLength(2);
  });

  it.each([
    ['an empty body with Content-Type application/json', { 'content-type': 'application/json' }],
    ['an empty body without Content-Type', {}],
  ])('accepts %s as a job of 0 items (202)', async (_name, headers) => {
    const r = await http(server.url, 'POST', '/api/async/users', { headers });
    expect(r.status).toBe(202);
    const job = await pollUntilDone(server, pathOf(r.headers.location));
    expect(job).toMatchObject({ status: 'COMPLETED', total: 0, created: [] });
  });

  it('accepts an empty JSON array (202)', async () => {
    const r = await http(server.url, 'POST', '/api/async/users', { body: [] });
    expect(r.status).toBe(202);
  });

  it.each([
    ['an object', '{"email":"a@b.io"}'],
    ['a string', '"users"'],
    ['a number', '3'],
    ['invalid JSON', '[{"email":'],
  ])('answers 400 for %s', async (_name, body) => {
    const r = await http(server.url, 'POST', '/api/async/users', { headers: { 'content-type': 'application/json' }, body });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request' });
  });

  it('answers 413 for more than 1000 items and 415 for a non-JSON body', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ email: `m${i}@x.io`, firstName: 'Mm', lastName: 'M' }));
    expect((await http(server.url, 'POST', '/api/async/users', { body: many })).status).toBe(413);
    const text = await http(server.url, 'POST', '/api/async/users', { headers: { 'content-type': 'text/plain' }, body: '[]' });
    expect(text.status).toBe(415);
  });

  it('answers 404 for an unknown job', async () => {
    for (const id of ['999999', 'abc', '-1']) {
      expect((await http(server.url, 'GET', `/api/async/users/jobs/${id}`)).status).toBe(404);
    }
  });

  it('answers 404 for a known job spelled with leading zeros: one URL per job', async () => {
    const { path } = firstJob!;
    expect((await http(server.url, 'GET', path)).status).toBe(200);
    const id = /\/(\d+)$/.exec(path)![1]!;
    for (const alias of [`0${id}`, `000${id}`]) {
      expect((await http(server.url, 'GET', `/api/async/users/jobs/${alias}`)).status).toBe(404);
    }
  });

  it('keeps job records and their users across a restart', async () => {
    expect(firstJob).toBeDefined();
    const { path, job } = firstJob!;
    const latest = (await http(server.url, 'GET', '/api/async/users/status')).json<JobBody>();
    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startServer({ dataDir: server.dataDir });

    const again = await http(server.url, 'GET', path);
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({ id: job.id, status: 'COMPLETED', created: job.created });
    const status = await http(server.url, 'GET', '/api/async/users/status');
    expect(status.json()).toMatchObject({ id: latest.id, status: latest.status });
    for (const id of job.created) expect((await http(server.url, 'GET', `/api/users/${id}`)).status).toBe(200);

    // Ids keep counting: a job submitted now does not reuse an old id.
    const next = await http(server.url, 'POST', '/api/async/users', { body: people('after') });
    expect(next.status).toBe(202);
    expect(next.json().id).toBeGreaterThan(latest.id);
    expect(await pollUntilDone(server, pathOf(next.headers.location))).toMatchObject({ status: 'COMPLETED', total: 3 });
  });

  it('a job accepted just before SIGTERM is finished before exit 0 and reported after restart', async () => {
    const body = Array.from({ length: 200 }, (_, i) => ({ email: `late-${i}@async.example`, firstName: 'Lat', lastName: 'E' }));
    const r = await http(server.url, 'POST', '/api/async/users', { body });
    expect(r.status).toBe(202);
    const path = pathOf(r.headers.location);
    expect(await server.stop('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    server = await startServer({ dataDir: server.dataDir });
    const job = await pollUntilDone(server, path);
    expect(job).toMatchObject({ status: 'COMPLETED', total: 200, processed: 200 });
    // recover() re-queues a PENDING job on restart, so COMPLETED alone does not prove the old
    // process finished it: its completion time must precede the exit. A timestamp without a
    // fraction may have been rounded, so the bound is then the next whole second.
    expect(typeof job.completedAt).toBe('string');
    const completedAt = Date.parse(job.completedAt!);
    expect(Number.isFinite(completedAt)).toBe(true);
    const bound = /\.\d+Z$/.test(job.completedAt!) ? stoppedAt : Math.ceil(stoppedAt / 1000) * 1000;
    expect(completedAt).toBeLessThanOrEqual(bound);
    expect(job.created).toHaveLength(200);
    expect((await http(server.url, 'GET', '/api/users/search?email=late-')).json()).toHaveLength(200);
  });
});

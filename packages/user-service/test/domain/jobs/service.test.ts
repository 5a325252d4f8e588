import { join } from 'node:path';
import { BadRequestError, InternalServerError } from '@jaxrs-node/pipeline';
import { describe, expect, it } from 'vitest';
import {
  JOB_DONE_COLLECTION,
  JOB_ITEM_SLOTS,
  JOB_ITEMS_COLLECTION,
  JOB_OWNERS_COLLECTION,
  JobService,
  NO_JOB_STATUS,
  type CreateItemOptions,
  type Job,
  type JobServiceOptions,
} from '../../../src/domain/jobs/service.js';
import { JournalRecordStore, MemoryRecordStore } from '../../../src/storage/index.js';
import type { RecordStore } from '../../../src/storage/record-store.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../../storage/temp-dirs.js';

const tempDir = useTempDirs('jobs-test');

/** A createUser that validates like the real one would: `email` required. */
function fakeUsers(store: RecordStore) {
  const calls: unknown[] = [];
  const createUser = async (body: unknown, options?: CreateItemOptions): Promise<{ id: number }> => {
    calls.push(body);
    const email = (body as { email?: unknown } | null)?.email;
    if (typeof email !== 'string') {
      throw new BadRequestError('Validation failed', { details: [{ field: 'email', message: 'is required' }] });
    }
    const id = await store.allocateId('users');
    await store.commit([{ op: 'put', collection: 'users', record: { id, email } }, ...(options?.alsoCommit({ id }) ?? [])], {
      expect: options?.expect,
    });
    return { id };
  };
  return { calls, createUser };
}

async function setup(options: Partial<JobServiceOptions> = {}) {
  const store = new MemoryRecordStore();
  await store.open();
  const users = fakeUsers(store);
  const jobs = new JobService({ store, createUser: users.createUser, ...options });
  return { store, users, jobs };
}

/** A promise with its resolver, to hold an item in flight. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('JobService lifecycle', () => {
  it('answers PENDING at once, then completes with created ids and per-item failures', async () => {
    const { jobs, store, users } = await setup();
    const job = await jobs.submit([{ email: 'a@x.io' }, { name: 'no email' }, { email: 'c@x.io' }]);
    expect(job).toMatchObject({ status: 'PENDING', total: 3, processed: 0, created: [], failed: [] });
    expect(users.calls).toHaveLength(0); // nothing ran before submit resolved
    expect(store.get(JOB_ITEMS_COLLECTION, job.id)).toEqual({
      id: job.id,
      items: [{ email: 'a@x.io' }, { name: 'no email' }, { email: 'c@x.io' }],
    });

    await jobs.whenIdle();
    const done = jobs.get(job.id);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      total: 3,
      processed: 3,
      created: [1, 2],
      failed: [{ index: 1, errors: [{ field: 'email', message: 'is required' }] }],
    });
    expect(done.completedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/); // the clock's ISO time
    expect(store.get('jobs', job.id)).toEqual(done); // the final state is committed
    expect(store.get(JOB_ITEMS_COLLECTION, job.id)).toBeUndefined(); // items are dropped
    expect(jobs.latest()).toEqual(done);
  });

  it('reports RUNNING with live progress while an item is in flight', async () => {
    const { store } = await setup();
    const held = gate();
    let started = 0;
    const jobs = new JobService({
      store,
      createUser: async () => {
        started++;
        if (started === 2) await held.opened;
        return { id: started };
      },
    });
    const job = await jobs.submit([{}, {}, {}]);
    await until(() => started >= 2, 'the second item to start');
    expect(jobs.get(String(job.id))).toMatchObject({ status: 'RUNNING', processed: 1, created: [1] });
    expect(store.get<Job>('jobs', job.id)?.status).toBe('RUNNING'); // committed before the first item
    held.open();
    await jobs.whenIdle();
    expect(jobs.get(job.id)).toMatchObject({ status: 'COMPLETED', created: [1, 2, 3] });
  });

  it('an empty, undefined or null body is a job of 0 items that completes', async () => {
    const { jobs } = await setup();
    for (const body of [undefined, null, []]) {
      const job = await jobs.submit(body);
      expect(job.total).toBe(0);
      await jobs.whenIdle();
      expect(jobs.get(job.id)).toMatchObject({ status: 'COMPLETED', created: [], failed: [] });
    }
  });

  it('runs jobs one at a time in submission order', async () => {
    const { jobs, users } = await setup();
    const first = await jobs.submit([{ email: '1@x.io' }, { email: '2@x.io' }]);
    const second = await jobs.submit([{ email: '3@x.io' }]);
    expect(jobs.latest()?.id).toBe(second.id);
    await jobs.whenIdle();
    expect(users.calls).toEqual([{ email: '1@x.io' }, { email: '2@x.io' }, { email: '3@x.io' }]);
    expect(jobs.get(first.id).created).toEqual([1, 2]);
    expect(jobs.get(second.id).created).toEqual([3]);
  });

  it('an unexpected error FAILs the job, keeps what was created, and hides the error text', async () => {
    const seen: unknown[] = [];
    const { store } = await setup();
    let n = 0;
    const jobs = new JobService({
      store,
      onError: (error) => seen.push(error),
      createUser: async () => {
        if (++n === 2) throw new InternalServerError('disk on fire');
        return { id: n };
      },
    });
    const job = await jobs.submit([{}, {}, {}]);
    await jobs.whenIdle();
    const failed = jobs.get(job.id);
    expect(failed).toMatchObject({ status: 'FAILED', created: [1], processed: 1, reason: 'Unexpected error at item 1' });
    expect(JSON.stringify(failed)).not.toContain('disk on fire');
    expect(seen).toHaveLength(1);
    expect(n).toBe(2); // the remaining item was skipped
  });

  it('commits progress every `progressEvery` items', async () => {
    const { store } = await setup();
    const snapshots: number[] = [];
    const jobs = new JobService({
      store,
      progressEvery: 2,
      createUser: async () => {
        snapshots.push(store.get<Job>('jobs', 1)!.processed);
        return { id: 1 };
      },
    });
    await jobs.submit([{}, {}, {}, {}, {}]);
    await jobs.whenIdle();
    expect(snapshots).toEqual([0, 0, 2, 2, 4]);
  });
});

describe('JobService input checks', () => {
  it('400 for a body that is not an array, 413 above maxItems; nothing is committed', async () => {
    const { jobs, store } = await setup({ maxItems: 3 });
    for (const body of [{}, 'x', 1, { items: [] }]) {
      await expect(jobs.submit(body)).rejects.toMatchObject({ status: 400, code: 'JOB_BODY_NOT_ARRAY' });
    }
    await expect(jobs.submit([{}, {}, {}, {}])).rejects.toMatchObject({ status: 413, code: 'JOB_TOO_MANY_ITEMS' });
    expect(store.size('jobs')).toBe(0);
  });

  it('accepts exactly 1000 items by default and refuses 1001', async () => {
    const { jobs } = await setup();
    await expect(jobs.submit(Array.from({ length: 1001 }, () => ({})))).rejects.toMatchObject({ status: 413 });
    const job = await jobs.submit(Array.from({ length: 1000 }, (_, i) => ({ email: `${i}@x.io` })));
    await jobs.whenIdle();
    expect(jobs.get(job.id)).toMatchObject({ status: 'COMPLETED', processed: 1000 });
    expect(jobs.get(job.id).created).toHaveLength(1000);
  });

  it('404 for unknown or hostile job ids', async () => {
    const { jobs } = await setup();
    for (const id of ['1', '../1', '1e0', '-1', '0', 'abc', 7]) {
      expect(() => jobs.get(id)).toThrow(expect.objectContaining({ status: 404, code: 'JOB_NOT_FOUND' }));
    }
  });

  it('latest() is undefined before any job; the status endpoint then reports COMPLETED', async () => {
    const { jobs } = await setup();
    expect(jobs.latest()).toBeUndefined();
    expect(jobs.latest() ?? NO_JOB_STATUS).toEqual({ status: 'COMPLETED', total: 0, processed: 0 });
    await jobs.whenIdle(); // idle resolves with nothing queued
  });
});

describe('JobService.recover', () => {
  it('re-runs PENDING jobs and resumes RUNNING ones after their done items, creating each user once', async () => {
    const store = new MemoryRecordStore();
    await store.open();
    const base = { processed: 0, created: [], failed: [], submittedAt: '2024-01-01T00:00:00.000Z' };
    await store.commit([
      {
        op: 'put',
        collection: 'jobs',
        record: { id: await store.allocateId('jobs'), status: 'RUNNING', total: 2, ...base, processed: 1, created: [9] },
      },
      { op: 'put', collection: JOB_ITEMS_COLLECTION, record: { id: 1, items: [{ email: 'a@x.io' }, { email: 'b@x.io' }] } },
      // The first item of job 1 created user 9 before the restart (its done-record says so);
      // the owner record of the dead process is still there.
      { op: 'put', collection: JOB_DONE_COLLECTION, record: { id: 1 * JOB_ITEM_SLOTS + 0, user: 9 } },
      { op: 'put', collection: JOB_OWNERS_COLLECTION, record: { id: 1, owner: 'the previous process' } },
      { op: 'put', collection: 'jobs', record: { id: await store.allocateId('jobs'), status: 'PENDING', total: 1, ...base } },
      { op: 'put', collection: JOB_ITEMS_COLLECTION, record: { id: 2, items: [{ email: 'c@x.io' }] } },
      { op: 'put', collection: 'jobs', record: { id: await store.allocateId('jobs'), status: 'COMPLETED', total: 0, ...base } },
    ]);
    const users = fakeUsers(store);
    const jobs = new JobService({ store, createUser: users.createUser });
    expect(await jobs.recover()).toEqual({ resumed: 2 });
    await jobs.whenIdle();
    expect(jobs.get(1)).toMatchObject({ status: 'COMPLETED', processed: 2, created: [9, 1] });
    expect(jobs.get(2)).toMatchObject({ status: 'COMPLETED', created: [2] });
    expect(users.calls).toEqual([{ email: 'b@x.io' }, { email: 'c@x.io' }]); // a@x.io was done already
    for (const c of [JOB_ITEMS_COLLECTION, JOB_DONE_COLLECTION, JOB_OWNERS_COLLECTION]) expect(store.size(c)).toBe(0);
    expect(jobs.latest()?.id).toBe(3);
  });

  it('an owner that lost its job stops without writing: the other runner finishes it, each item once', async () => {
    const store = new MemoryRecordStore();
    await store.open();
    const users = fakeUsers(store);
    const held = gate();
    let started = 0;
    const first = new JobService({
      store,
      createUser: async (body, options) => {
        started++;
        await held.opened;
        return users.createUser(body, options);
      },
    });
    const job = await first.submit([{ email: 'a@x.io' }, { email: 'b@x.io' }]);
    await until(() => started > 0, 'the first item to start');
    // Another runner takes the job over (as an instance does when the owner's lease expired).
    const second = new JobService({ store, createUser: users.createUser });
    expect(await second.recover()).toEqual({ resumed: 1 });
    await second.whenIdle();
    held.open();
    await first.whenIdle();
    expect(second.get(job.id)).toMatchObject({ status: 'COMPLETED', processed: 2, failed: [] });
    expect(store.size('users')).toBe(2);
    expect(users.calls).toEqual([{ email: 'a@x.io' }, { email: 'b@x.io' }, { email: 'a@x.io' }]); // the late one was refused
  });

  it('a job accepted before a crash is durable and finished after restart', async () => {
    const dir = join(await tempDir(), 'db');
    const first = new JournalRecordStore({ dir });
    await first.open();
    const held = gate();
    let calls = 0;
    const before = new JobService({
      store: first,
      onError: () => undefined,
      createUser: async () => {
        calls++;
        await held.opened;
        return { id: 1 };
      },
    });
    const job = await before.submit([{ email: 'a@x.io' }]);
    await until(() => calls > 0, 'the first item to start');
    await first.close(); // "crash" while the item is in flight
    held.open();
    await before.whenIdle(); // its late commits fail against the closed store, silently

    const second = new JournalRecordStore({ dir });
    await second.open();
    const users = fakeUsers(second);
    const after = new JobService({ store: second, createUser: users.createUser });
    expect(await after.recover()).toEqual({ resumed: 1 });
    await after.whenIdle();
    // The item in flight at the crash never committed: it runs again, once.
    expect(after.latest()).toMatchObject({ id: job.id, status: 'COMPLETED', created: [1] });
    expect(users.calls).toEqual([{ email: 'a@x.io' }]);
    await second.close();
  });
});

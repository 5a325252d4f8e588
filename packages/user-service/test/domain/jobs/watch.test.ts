/**
 * `JobService.watch`: the live progress behind `GET /api/async/users/jobs/{id}/events`.
 */
import { InternalServerError } from '@jaxrs-node/pipeline';
import { describe, expect, it } from 'vitest';
import { JobService, type Job } from '../../../src/domain/jobs/service.js';
import { MemoryRecordStore } from '../../../src/storage/index.js';

async function setup(createUser?: (body: unknown) => Promise<{ id: number }>) {
  const store = new MemoryRecordStore();
  await store.open();
  let next = 0;
  const jobs = new JobService({ store, createUser: createUser ?? (async () => ({ id: ++next })), onError: () => undefined });
  return { jobs };
}

const brief = (j: Job) => `${j.status}:${j.processed}`;

describe('JobService.watch', () => {
  it('reports RUNNING, every item, then COMPLETED, each a snapshot that later changes do not touch', async () => {
    const { jobs } = await setup();
    const job = await jobs.submit([{}, {}, {}]);
    const seen: Job[] = [];
    jobs.watch(job.id, (j) => seen.push(j));
    await jobs.whenIdle();
    expect(seen.map(brief)).toEqual(['RUNNING:0', 'RUNNING:1', 'RUNNING:2', 'RUNNING:3', 'COMPLETED:3']);
    expect(seen[1]!.created).toEqual([1]);
    expect(seen.at(-1)).toEqual(jobs.get(job.id));
  });

  it('reports FAILED when an item fails unexpectedly', async () => {
    const { jobs } = await setup(async () => {
      throw new InternalServerError('disk on fire');
    });
    const job = await jobs.submit([{}]);
    const seen: Job[] = [];
    jobs.watch(job.id, (j) => seen.push(j));
    await jobs.whenIdle();
    expect(seen.map(brief)).toEqual(['RUNNING:0', 'FAILED:0']);
    expect(seen.at(-1)!.reason).toBe('Unexpected error at item 0');
  });

  it('stops reporting once stopped, and reports only the job watched', async () => {
    const { jobs } = await setup();
    const a = await jobs.submit([{}, {}]);
    const b = await jobs.submit([{}]);
    const seenA: string[] = [];
    const seenB: string[] = [];
    const stopA = jobs.watch(a.id, (j) => {
      seenA.push(brief(j));
      if (j.processed === 1) stopA();
    });
    jobs.watch(b.id, (j) => seenB.push(brief(j)));
    await jobs.whenIdle();
    expect(seenA).toEqual(['RUNNING:0', 'RUNNING:1']);
    expect(seenB).toEqual(['RUNNING:0', 'RUNNING:1', 'COMPLETED:1']);
  });
});

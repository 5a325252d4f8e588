import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll.js';
import { http, removeDir, startServer, type RunningServer } from '../helpers/server.js';

/**
 * SIGKILL during an async job: after the restart the job is taken up where it stopped and
 * finishes with every item's user created exactly once (each item's user is committed together
 * with its done-record, and an item with a done-record is never run again).
 */
interface JobBody {
  id: number;
  status: string;
  total: number;
  processed: number;
  created: number[];
  failed: unknown[];
}

let server: RunningServer | undefined;
afterAll(async () => {
  if (server === undefined) return;
  await server.stop('SIGKILL');
  removeDir(server.dataDir);
});

describe('SIGKILL during an async job', () => {
  it('the restarted server finishes the job, each item exactly once', async () => {
    server = await startServer({ env: { SEED: 'none' } });
    const total = 1000;
    const body = Array.from({ length: total }, (_, i) => ({ email: `killed-${i}@async.example`, firstName: 'Kil', lastName: 'Led' }));
    const accepted = await http(server.url, 'POST', '/api/async/users', { body });
    expect(accepted.status).toBe(202);
    const path = new URL(accepted.headers.location as string).pathname;
    const job = async (): Promise<JobBody> => (await http(server!.url, 'GET', path)).json<JobBody>();
    let seen: JobBody | undefined;
    await until(async () => (seen = await job()).processed >= 20, 'the job to get going', 10_000);
    expect(await server.stop('SIGKILL')).toBeNull();
    expect(seen!.processed).toBeLessThan(total); // killed mid-job (1000 items take seconds)

    server = await startServer({ dataDir: server.dataDir, env: { SEED: 'none' } });
    let finished: JobBody | undefined;
    await until(
      async () => {
        finished = await job();
        return finished.status === 'COMPLETED' || finished.status === 'FAILED';
      },
      'the resumed job to finish',
      30_000,
    );
    expect(finished).toMatchObject({ status: 'COMPLETED', total, processed: total, failed: [] });
    expect(new Set(finished!.created).size).toBe(total);
    const users = (await http(server.url, 'GET', '/api/users/search?email=killed-')).json<Array<{ id: number; email: string }>>();
    expect(users).toHaveLength(total);
    expect(new Set(users.map((u) => u.email)).size).toBe(total);
    expect(users.map((u) => u.id).sort((a, b) => a - b)).toEqual([...finished!.created].sort((a, b) => a - b));
  });
});

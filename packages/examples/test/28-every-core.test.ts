import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { countPrimes, createApp, MAX_BELOW, workersFromEnv } from '../src/28-every-core/app.js';
import { send } from './helpers/http.js';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/** `node dist/28-every-core/main.js`; resolves once the supervisor printed its `listening on` line. */
function startMain(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; stdout: string[]; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [join(pkg, 'dist/28-every-core/main.js')], {
    cwd: pkg,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let err = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not start in 15 s: ${err}`));
    }, 15_000);
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        stdout.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(stdout.at(-1)!);
        if (m !== null) {
          clearTimeout(timer);
          resolve({ child, url: m[1]!, stdout, exited });
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${err}`));
    });
  });
}

describe('28 every core: serveOnCores', () => {
  it('in-process (inject): the application answers with its pid and counts primes', async () => {
    const app = createApp();
    expect((await app.inject('/whoami')).json()).toEqual({ pid: process.pid });
    expect((await app.inject('/primes?below=100')).json()).toEqual({ pid: process.pid, below: 100, count: 25 });
    const bad = await app.inject(`/primes?below=${MAX_BELOW + 1}`);
    expect([bad.status, bad.json<{ message: string }>().message]).toEqual([400, `below must be an integer from 2 to ${MAX_BELOW}`]);
    expect(countPrimes(50_000)).toBe(5133);
  });

  it('WORKERS is auto by default, a positive integer otherwise, and a typo fails loudly', () => {
    expect(workersFromEnv({})).toBe('auto');
    expect(workersFromEnv({ WORKERS: 'auto' })).toBe('auto');
    expect(workersFromEnv({ WORKERS: '3' })).toBe(3);
    expect(() => workersFromEnv({ WORKERS: 'two' })).toThrow(`WORKERS must be 'auto' or a positive integer, got "two"`);
    expect(() => workersFromEnv({ WORKERS: '0' })).toThrow(RangeError);
  });

  describe('main.js with WORKERS=2', () => {
    beforeAll(async () => {
      await run(process.execPath, [join(pkg, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: pkg });
    }, 120_000);

    it('prints its URL once, spreads new connections over two worker processes, and SIGTERM exits 0', async () => {
      const { child, url, stdout, exited } = await startMain({ PORT: '0', WORKERS: '2' });
      try {
        const pids = new Set<number>();
        // Each request on a new connection (no keep-alive): the supervisor or the kernel picks a worker.
        for (let i = 0; i < 60 && pids.size < 2; i++) {
          const r = await send(url, '/whoami', { headers: { connection: 'close' } });
          expect(r.status).toBe(200);
          pids.add(r.json<{ pid: number }>().pid);
        }
        expect(pids.size).toBe(2);
        expect(pids.has(child.pid!)).toBe(false);
        expect(stdout.filter((l) => l.startsWith('listening on'))).toEqual([`listening on ${url}`]);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    }, 30_000);
  });
});

/**
 * serveOnCores over real sockets: a supervisor process runs test/fixtures/workers/server.mjs (the
 * BUILT package) and forks its workers; requests go to 127.0.0.1 without keep-alive, so each one
 * is a new connection the supervisor (cluster) or the kernel (reusePort) hands to some worker.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { Application, reusePortSupported, serveOnCores } from '../../src/index.js';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = join(PKG, 'test/fixtures/workers/server.mjs');
const TLS_CERT = join(PKG, 'test/fixtures/tls/cert.pem');
const runFile = promisify(execFile);

/** The root test command builds first; a developer running this file alone gets a build here. */
function ensureBuilt(): void {
  if (existsSync(join(PKG, 'dist/core/server/workers.js'))) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: PKG, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('pipeline build failed');
}

interface Supervisor {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** The first message the supervisor sent its parent over IPC. */
  readonly message: Promise<unknown>;
  readonly exited: Promise<number | null>;
  /** Resolves with the `nth` (default first) stdout or stderr line that matches; bounded in time. */
  line(stream: 'stdout' | 'stderr', match: RegExp, nth?: number): Promise<RegExpExecArray>;
}

/** Runs the fixture's supervisor with `env`; every stream is split into lines as it arrives. */
function run(env: Record<string, string>): Supervisor {
  const child = spawn(process.execPath, [FIXTURE], {
    cwd: PKG,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  /** Re-checked on every new line; true once satisfied (then dropped). */
  const waiters = new Set<() => boolean>();
  const message = new Promise<unknown>((r) => child.once('message', r));
  for (const stream of ['stdout', 'stderr'] as const) {
    let buf = '';
    child[stream]!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        lines[stream].push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        for (const w of waiters) if (w()) waiters.delete(w);
      }
    });
  }
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const line = (stream: 'stdout' | 'stderr', match: RegExp, nth = 1): Promise<RegExpExecArray> =>
    new Promise((found, reject) => {
      const check = (): boolean => {
        const hits = lines[stream].map((l) => match.exec(l)).filter((m) => m !== null);
        if (hits.length < nth) return false;
        clearTimeout(timer);
        found(hits[nth - 1]!);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${stream} line ${match} in time:\n${lines.stderr.join('\n')}`));
      }, 15_000);
      if (check()) return;
      waiters.add(check);
      void exited.then((code) => {
        if (!waiters.delete(check)) return;
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before ${stream} line ${match}:\n${lines.stderr.join('\n')}`));
      });
    });
  return { child, stdout: lines.stdout, stderr: lines.stderr, message, exited, line };
}

/** Starts the fixture and waits for its ready line: `listening on URL MODE PID,PID`. */
async function start(env: Record<string, string>): Promise<Supervisor & { url: string; mode: string; pids: number[] }> {
  const s = run(env);
  try {
    const [, url, mode, pids] = await s.line('stdout', /^listening on (https?:\/\/127\.0\.0\.1:\d+) (\S+) ([\d,]+)$/);
    return Object.assign(s, { url: url!, mode: mode!, pids: pids!.split(',').map(Number) });
  } catch (error) {
    s.child.kill('SIGKILL');
    throw error;
  }
}

/** One GET on a new connection (no keep-alive); resolves with the status and the answering pid. */
function pidOf(url: string): Promise<{ status: number; pid: number }> {
  return new Promise((done, fail) => {
    const req = get(url, { agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode!, pid: (JSON.parse(body) as { pid: number }).pid }));
    });
    req.on('timeout', () => req.destroy(new Error(`${url} timed out`)));
    req.on('error', fail);
  });
}

/** Requests `/pid` (at most `max` times) until every pid in `wanted` has answered; returns those seen. */
async function pidsSeen(url: string, wanted: (seen: Set<number>) => boolean, max = 60): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < max && !wanted(seen); i++) seen.add((await pidOf(`${url}/pid`)).pid);
  return seen;
}

const byNumber = (a: number, b: number): number => a - b;

/** Every worker pid is alive until the supervisor is gone; the test process can signal them. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const SUPPORTS_REUSE_PORT = await reusePortSupported();

describe('serveOnCores', { timeout: 30_000 }, () => {
  beforeAll(ensureBuilt);

  describe.each(['cluster', 'reusePort'] as const)('mode %s', (mode) => {
    it.skipIf(mode === 'reusePort' && !SUPPORTS_REUSE_PORT)(
      'requests spread over both workers; the supervisor reports ready once; SIGTERM exits 0',
      async () => {
        const s = await start({ WORKERS: '2', MODE: mode });
        try {
          expect(s.mode).toBe(mode);
          expect(s.pids).toHaveLength(2);
          expect(s.stdout.filter((l) => l.startsWith('listening on'))).toHaveLength(1);
          expect(await s.message).toEqual({ type: 'ready', url: s.url, port: Number(new URL(s.url).port), mode, pids: s.pids });
          const seen = await pidsSeen(s.url, (x) => x.size === 2);
          expect([...seen].sort(byNumber)).toEqual([...s.pids].sort(byNumber));
        } finally {
          s.child.kill('SIGTERM');
        }
        expect(await s.exited).toBe(0);
        expect(s.pids.filter(alive)).toEqual([]);
      },
    );

    it.skipIf(mode === 'reusePort' && !SUPPORTS_REUSE_PORT)('a worker killed with SIGKILL is replaced by a new one', async () => {
      const s = await start({ WORKERS: '2', MODE: mode });
      try {
        const [victim, survivor] = s.pids as [number, number];
        process.kill(victim, 'SIGKILL');
        await s.line('stderr', new RegExp(`worker ${victim} exited with signal SIGKILL; starting a new one in \\d+ ms`));
        const [, fresh] = await s.line('stderr', /worker (\d+) is ready/);
        expect(Number(fresh)).not.toBe(victim);
        const seen = await pidsSeen(s.url, (x) => x.has(Number(fresh)) && x.has(survivor));
        expect([...seen].sort(byNumber)).toEqual([survivor, Number(fresh)].sort(byNumber));
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await s.exited).toBe(0);
    });

    it.skipIf(mode === 'reusePort' && !SUPPORTS_REUSE_PORT)(
      'SIGTERM under load: every in-flight request completes with 200, then exit 0',
      async () => {
        const s = await start({ WORKERS: '2', MODE: mode, SLOW_MS: '400' });
        const slow = Array.from({ length: 6 }, () => pidOf(`${s.url}/slow`));
        // Every request is inside a worker (it printed `slow PID`) before the signal.
        await s.line('stdout', /^slow/, 6);
        s.child.kill('SIGTERM');
        const answers = await Promise.all(slow);
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
        expect(new Set(answers.map((a) => a.pid)).size).toBeGreaterThanOrEqual(1);
        expect(await s.exited).toBe(0);
      },
    );
  });

  it('a close option stops what each worker owns after its requests drained; a failing one exits 1', async () => {
    const s = await start({ WORKERS: '2', CLOSE: 'hook', SLOW_MS: '300' });
    const slow = pidOf(`${s.url}/slow`);
    await s.line('stdout', /^slow/);
    s.child.kill('SIGTERM');
    expect((await slow).status).toBe(200);
    const released = [(await s.line('stdout', /^released (\d+)$/, 1))[1], (await s.line('stdout', /^released (\d+)$/, 2))[1]];
    expect(released.map(Number).sort(byNumber)).toEqual([...s.pids].sort(byNumber));
    expect(await s.exited).toBe(0);

    const failing = await start({ WORKERS: '1', CLOSE: 'fail' });
    failing.child.kill('SIGTERM');
    await failing.line('stderr', /the worker's close failed: the store would not flush/);
    expect(await failing.exited).toBe(1);
  });

  it('a worker that had to cut a request at its shutdown deadline makes the supervisor exit 1', async () => {
    const s = await start({ WORKERS: '2', SLOW_MS: '20000', SHUTDOWN_DEADLINE: '100' });
    const cut = pidOf(`${s.url}/slow`).then(
      () => 'answered',
      () => 'cut',
    );
    await s.line('stdout', /^slow/);
    s.child.kill('SIGTERM');
    expect(await cut).toBe('cut');
    expect(await s.exited).toBe(1);
  });

  it('a crash loop gives up with exit 1 and says so', async () => {
    const s = run({ WORKERS: '2', APP: 'crash', RESTART: JSON.stringify({ delay: 10, maxDelay: 40, maxRestarts: 3, window: 60_000 }) });
    expect(await s.exited).toBe(1);
    expect(s.stderr.filter((l) => l.includes('starting a new one'))).toHaveLength(3);
    expect(s.stderr.join('\n')).toMatch(/workers died 4 times within 60000 ms .*crash loop, giving up/);
  });

  it('refuses a singleProcess application on several workers, with a message naming the option', async () => {
    const s = run({ WORKERS: '2', APP: 'single' });
    expect(await s.exited).toBe(1);
    expect(s.stderr.join('\n')).toContain(
      'the application is marked singleProcess (ApplicationOptions.singleProcess) and cannot run in 2 processes',
    );
    expect(s.stderr.filter((l) => l.includes('singleProcess'))).toHaveLength(1);
    expect(s.stdout).toEqual([]);
  });

  it('serves a singleProcess application on one worker', async () => {
    const s = await start({ WORKERS: '1', APP: 'single' });
    try {
      expect((await pidOf(`${s.url}/pid`)).pid).toBe(s.pids[0]);
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
  });

  it('serves h2 over TLS from every worker with the tls and http2 options (the url says https)', async () => {
    const s = await start({ WORKERS: '2', TLS_H2: '1' });
    try {
      expect(s.url).toMatch(/^https:/);
      const seen = new Set<number>();
      for (let i = 0; i < 40 && seen.size < 2; i++) {
        const { stdout } = await runFile('curl', ['-sS', '--http2', '--cacert', TLS_CERT, '-w', '\n%{http_version}', `${s.url}/pid`]);
        const [body, version] = stdout.split('\n');
        expect(version).toBe('2');
        seen.add((JSON.parse(body!) as { pid: number }).pid);
      }
      expect([...seen].sort(byNumber)).toEqual([...s.pids].sort(byNumber));
    } finally {
      s.child.kill('SIGTERM');
    }
    expect(await s.exited).toBe(0);
  });

  it('a start-up error in a worker stops everything with exit 1 and the error message', async () => {
    const s = run({ WORKERS: '2', APP: 'broken' });
    expect(await s.exited).toBe(1);
    expect(s.stderr.filter((l) => l.includes('the database URL is missing'))).toHaveLength(1);
    expect(s.stderr.join('\n')).toMatch(/worker \d+ could not start: the database URL is missing; stopping every worker/);
    expect(s.stdout).toEqual([]);
  });

  it.skipIf(SUPPORTS_REUSE_PORT)('forcing reusePort where this Node does not offer it fails at start-up', async () => {
    const s = run({ WORKERS: '2', MODE: 'reusePort' });
    expect(await s.exited).not.toBe(0);
    expect(s.stderr.join('\n')).toContain("mode 'reusePort' needs SO_REUSEPORT support");
  });

  it('bad options fail before any worker is forked, naming the option', async () => {
    const app = (): Application => new Application();
    await expect(serveOnCores(app, { workers: 0 })).rejects.toThrow("serveOnCores: workers must be a positive integer or 'auto', got 0");
    await expect(serveOnCores(app, { port: 70_000 })).rejects.toThrow('serveOnCores: port must be 0-65535, got 70000');
    await expect(serveOnCores(app, { restart: { dely: 5 } as never })).rejects.toThrow('serveOnCores: restart.dely must be a known key');
  });
});

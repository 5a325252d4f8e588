/**
 * Black-box tests of the process lifecycle: start-up line, access log, demo seed / SEED=none,
 * restarts without re-seeding, graceful SIGTERM / SIGINT with a request in flight (exit 0 only
 * after it completed), and production mode refusing development defaults.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { agent, ensureBuilt, http, MAIN, removeDir, startServer, waitForLine, type RunningServer } from '../helpers/server.js';
import { binaryContent, BOUNDARY, fieldPart, filePart, multipartBody } from '../domain/files/uploads-multipart.js';

const PROD_SECRETS = { ADMIN_PASSWORD: 'prod-admin-pass-4f9a', API_KEYS: 'prod-key-1,prod-key-2', TOKEN_SECRET: 'p'.repeat(40) };

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** With a signal: milliseconds from spawn to `listening on` (the signal left right then). */
  startupMs?: number;
}

/**
 * Runs `node dist/main.js` on a temp DATA_DIR until it exits by itself, or, with `signal`, until
 * it exits after receiving `signal` from inside the stdout listener that sees `listening on`.
 *
 * The SIGKILL bounds are safety nets, never synchronisation: without a signal, 10 s for the whole
 * run (it exits on its own after a configuration check); with one, the start-up gets a generous
 * 60 s (a loaded machine starts Node slowly), and the exit after the signal gets 10 s or three
 * times the start-up this process measured, whichever is longer, so a loaded machine does not make
 * a correct drain look like a hang.
 */
function runToExit(env: Record<string, string>, signal?: NodeJS.Signals): Promise<Exit> {
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'user-service-exit-'));
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let startupMs: number | undefined;
  let timer = setTimeout(() => child.kill('SIGKILL'), signal === undefined ? 10_000 : 60_000);
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (signal !== undefined && startupMs === undefined && stdout.includes('listening on')) {
      startupMs = performance.now() - spawnedAt;
      child.kill(signal);
      clearTimeout(timer);
      timer = setTimeout(() => child.kill('SIGKILL'), Math.max(10_000, 3 * startupMs));
    }
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => {
    // 'close' (not 'exit'): all output has been read by then.
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      removeDir(dataDir);
      resolve({ code, signal: sig, stdout, stderr, ...(startupMs === undefined ? {} : { startupMs }) });
    });
  });
}

/** `runs` calls of `run`, at most `concurrency` at a time, results in call order. */
async function limited<T>(runs: number, concurrency: number, run: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs) {
      const i = next++;
      results[i] = await run();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs) }, worker));
  return results;
}

async function withServer<T>(options: Parameters<typeof startServer>[0], fn: (s: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(options);
  try {
    return await fn(server);
  } finally {
    // Every drain in this file must end with exit 0 (SIGTERM after requests were served).
    const code = await server.stop('SIGTERM');
    expect(code, server.stdout.at(-1)).toBe(0);
    if (options?.dataDir === undefined) removeDir(server.dataDir);
  }
}

describe('lifecycle (black box)', () => {
  describe('start-up, access log and seed', () => {
    it('prints `listening on http://HOST:PORT` and one JSON access-log line per request', async () => {
      await withServer({}, async (server) => {
        expect(server.stdout).toContain(`listening on http://127.0.0.1:${server.port}`);
        const calls = [
          { id: 'life-a', method: 'GET', path: '/api/users/1', status: 200 },
          { id: 'life-b', method: 'GET', path: '/api/users/999999', status: 404 },
          { id: 'life-c', method: 'GET', path: '/api/health', status: 200 },
        ];
        for (const c of calls) {
          expect((await http(server.url, c.method, c.path, { headers: { 'x-request-id': c.id } })).status).toBe(c.status);
        }
        // Without X-Request-Id the server makes one up, echoes it and logs it.
        const created = await http(server.url, 'POST', '/api/users', {
          body: { email: 'log@example.com', firstName: 'Log', lastName: 'Line' },
        });
        const id = created.headers['x-request-id'] as string;
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        calls.push({ id, method: 'POST', path: '/api/users', status: 201 });

        for (const { id: requestId, ...rest } of calls) {
          const line = JSON.parse(await waitForLine(server, (l) => l.includes(`"requestId":"${requestId}"`)));
          expect(line).toMatchObject({ requestId, ...rest });
          expect(line.durationMs >= 0 && !Number.isNaN(Date.parse(line.time))).toBe(true);
          expect(server.stdout.filter((l) => l.includes(`"requestId":"${requestId}"`))).toHaveLength(1);
        }
      });
    });

    it('seeds the demo dataset on an empty DATA_DIR', async () => {
      await withServer({}, async (server) => {
        const john = (await http(server.url, 'GET', '/api/users/1')).json();
        expect(john).toMatchObject({ id: 1, firstName: 'John', lastName: 'Doe', email: 'test@example.com', roles: ['USER'] });
        expect(john.age >= 18 && john.age <= 100 && /^\d{4}-\d{2}-\d{2}$/.test(john.birthDate)).toBe(true);
        expect((await http(server.url, 'GET', '/api/users')).json().length).toBeGreaterThanOrEqual(3);

        const orders = (await http(server.url, 'GET', '/api/users/1/orders')).json();
        expect(orders.length).toBeGreaterThanOrEqual(1);
        for (const order of orders) {
          expect(order).toMatchObject({ orderNumber: expect.stringMatching(/^ORD-\d+$/), customer: { id: 1, email: 'test@example.com' } });
          expect(order.items.length >= 1 && order.totalAmount > 0 && ['PENDING', 'PROCESSING', 'COMPLETED'].includes(order.status)).toBe(
            true,
          );
        }
        expect((await http(server.url, 'GET', '/api/products/1')).json()).toMatchObject({ id: 1, name: expect.any(String) });
        const file = await http(server.url, 'GET', '/api/files/1/download');
        expect(file.status === 200 && file.text.length > 0).toBe(true);
      });
    });

    it('SEED=none starts empty', async () => {
      await withServer({ env: { SEED: 'none' } }, async (server) => {
        const users = await http(server.url, 'GET', '/api/users');
        expect([users.status, users.json()]).toEqual([200, []]);
        expect((await http(server.url, 'GET', '/api/users/1')).status).toBe(404);
        expect((await http(server.url, 'GET', '/api/files/1/download')).status).toBe(404);
      });
    });

    it('a restart on the same DATA_DIR keeps the data and does not seed again', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'user-service-restart-'));
      try {
        const before = await withServer({ dataDir }, async (server) => {
          const created = await http(server.url, 'POST', '/api/users', {
            body: { email: 'kept@example.com', firstName: 'Kept', lastName: 'User', age: 50 },
          });
          expect([created.status, (await http(server.url, 'DELETE', '/api/users/2')).status]).toEqual([201, 204]);
          return { id: created.json().id as number, users: (await http(server.url, 'GET', '/api/users')).json() };
        });
        await withServer({ dataDir }, async (server) => {
          expect((await http(server.url, 'GET', `/api/users/${before.id}`)).json()).toMatchObject({ email: 'kept@example.com', age: 50 });
          expect((await http(server.url, 'GET', '/api/users/2')).status).toBe(404);
          // Same list as before the restart: nothing re-seeded (user 2 stays deleted, no duplicates).
          expect((await http(server.url, 'GET', '/api/users')).json()).toEqual(before.users);
          expect((await http(server.url, 'GET', '/api/users/1/orders')).json()).toHaveLength(2);
        });
      } finally {
        removeDir(dataDir);
      }
    });
  });

  describe('graceful shutdown', () => {
    it('SIGTERM lets an in-flight streamed response finish, refuses new work, then exits 0', async () => {
      const server = await startServer();
      try {
        const res = await request(`${server.url}/api/large-data?count=200000`, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        const iterator = res.body[Symbol.asyncIterator]();
        const chunks: Buffer[] = [(await iterator.next()).value as Buffer];

        const exited = server.stop('SIGTERM');
        await waitForLine(server, (l) => l.includes('SIGTERM: draining'));
        // New work during the drain: refused connection, or 503 on a kept-alive socket.
        expect(
          await http(server.url, 'GET', '/api/health').then(
            (r) => String(r.status),
            () => 'refused',
          ),
        ).toMatch(/^(503|refused)$/);

        for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) chunks.push(next.value as Buffer);
        const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items: unknown[]; count: number };
        expect(doc.count).toBe(200_000);
        expect(doc.items).toHaveLength(200_000);
        expect(await exited).toBe(0);
      } finally {
        await server.stop('SIGKILL');
        removeDir(server.dataDir);
      }
    });

    it('SIGINT lets an upload in progress complete with 201, exits 0, and the file survives', async () => {
      const server = await startServer();
      const dataDir = server.dataDir;
      try {
        const content = binaryContent(64 * 1024);
        const body = multipartBody([
          filePart(content, 'inflight.bin', 'application/octet-stream'),
          fieldPart('description', 'sent during SIGINT'),
        ]);
        const half = Math.floor(body.length / 2);
        const chunk = (b: Buffer): Buffer => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);

        const socket = connect(server.port, '127.0.0.1').on('error', () => undefined);
        let received = '';
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        const sawContinue = new Promise<void>((resolve) =>
          socket.on('data', (d: Buffer) => {
            received += d.toString('latin1');
            if (received.includes('100 Continue')) resolve();
          }),
        );
        // Expect: 100-continue makes Node answer 100 once the request reached the handler, so the
        // signal below is sent while the request is provably in flight.
        socket.write(
          `POST /api/files/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
            'Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n',
        );
        await sawContinue;
        socket.write(chunk(body.subarray(0, half)));

        const exited = server.stop('SIGINT');
        await waitForLine(server, (l) => l.includes('SIGINT: draining'));
        socket.write(Buffer.concat([chunk(body.subarray(half)), Buffer.from('0\r\n\r\n')]));
        await closed; // the response carries Connection: close while draining

        expect(received).toMatch(/HTTP\/1\.1 201 Created/);
        const record = JSON.parse(received.slice(received.lastIndexOf('\r\n\r\n') + 4)) as { id: number; size: number };
        expect(record.size).toBe(content.length);
        expect(await exited, server.stdout.at(-1)).toBe(0);

        await withServer({ dataDir }, async (again) => {
          const raw = await fetch(`${again.url}/api/files/${record.id}/download`);
          expect(raw.status).toBe(200);
          expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
        });
      } finally {
        await server.stop('SIGKILL');
        removeDir(dataDir);
      }
    });

    // BUG (src/main.ts): `listening on` is printed before the SIGTERM/SIGINT handlers are installed,
    // so a supervisor that signals as soon as it reads the line can kill the process with the
    // default action (exit by signal, no drain). Fix: install the handlers before `listen()` /
    // before printing the line. Before the fix this fails in most runs (a race: each start loses it
    // with a probability of roughly 1 in 8 here); after it, it cannot fail. Eight starts, as before
    // (the race is per start), but two at a time: eight at once on a loaded two-core machine took
    // longer to start than the old fixed 10 s bound; each run's bound now follows its own start-up.
    it('SIGTERM sent the instant `listening on` appears still drains and exits 0', { timeout: 180_000 }, async () => {
      const runs = await limited(8, 2, () => runToExit({ SEED: 'none' }, 'SIGTERM'));
      const outcomes = runs.map((r) => `${r.code}/${r.signal} (start-up ${Math.round(r.startupMs ?? -1)} ms)`);
      expect(
        runs.map((r) => `${r.code}/${r.signal}`),
        outcomes.join(', '),
      ).toEqual(runs.map(() => '0/null'));
      for (const r of runs) {
        expect(r.startupMs, 'the signal was sent when `listening on` appeared').toBeDefined();
        expect(r.stdout.trim().split('\n').at(-1)).toBe('{"level":"info","message":"stopped","exitCode":0}');
      }
    });

    it('exits 1, saying why in its last line, when the shutdown deadline has to cut a response', async () => {
      const server = await startServer({ env: { SHUTDOWN_DEADLINE_MS: '300' } });
      const client = connect(server.port, '127.0.0.1');
      try {
        await new Promise<void>((resolve) => client.once('connect', () => resolve()));
        client.write('GET /api/large-data?count=1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        await new Promise<void>((resolve) => client.once('data', () => resolve())); // the response has started
        client.pause(); // and is never read further: it cannot finish before the deadline
        expect(await server.stop('SIGTERM')).toBe(1);
        const last = JSON.parse(server.stdout.at(-1)!) as { message: string; exitCode: number; problems: string[] };
        expect(last).toMatchObject({ message: 'stopped', exitCode: 1 });
        expect(last.problems).toEqual([expect.stringContaining('shutdown deadline (300 ms) cut')]);
      } finally {
        client.destroy();
        await server.stop('SIGKILL');
        removeDir(server.dataDir);
      }
    });
  });

  describe('configuration', () => {
    it('NODE_ENV=production with development defaults exits non-zero and names each variable', async () => {
      const r = await runToExit({ NODE_ENV: 'production' });
      expect(r.code).not.toBe(0);
      for (const name of ['ADMIN_PASSWORD', 'API_KEYS', 'TOKEN_SECRET']) expect(r.stderr).toContain(name);
      expect(r.stdout).not.toContain('listening on');
    });

    it('names only the variables still missing or invalid (a TOKEN_SECRET under 32 bytes, a bad PORT)', async () => {
      const r = await runToExit({
        NODE_ENV: 'production',
        ADMIN_PASSWORD: PROD_SECRETS.ADMIN_PASSWORD,
        TOKEN_SECRET: 'short-secret',
        PORT: 'eighty',
      });
      expect(r.code).not.toBe(0);
      for (const name of ['API_KEYS', 'PORT']) expect(r.stderr).toContain(name);
      expect(r.stderr).toMatch(/TOKEN_SECRET.*32 bytes/);
      expect(r.stderr).not.toMatch(/ADMIN_PASSWORD/);
      expect(r.stderr).not.toContain('short-secret');
    });

    it('NODE_ENV=production with every secret set starts, uses them, and never logs them', async () => {
      await withServer({ env: { NODE_ENV: 'production', ...PROD_SECRETS } }, async (server) => {
        expect((await http(server.url, 'GET', '/api/health')).status).toBe(200);
        const basic = `Basic ${Buffer.from(`admin:${PROD_SECRETS.ADMIN_PASSWORD}`).toString('base64')}`;
        expect((await http(server.url, 'GET', '/api/admin/users', { headers: { authorization: basic } })).status).toBe(200);
        expect((await http(server.url, 'GET', '/api/external/users', { headers: { 'x-api-key': 'prod-key-2' } })).status).toBe(200);
        expect((await http(server.url, 'GET', '/api/external/users', { headers: { 'x-api-key': 'test-api-key-123' } })).status).toBe(403);
        const output = [...server.stdout, ...server.stderr].join('\n');
        for (const secret of [PROD_SECRETS.ADMIN_PASSWORD, 'prod-key-1', PROD_SECRETS.TOKEN_SECRET]) expect(output).not.toContain(secret);
        expect(server.stderr.join('\n')).not.toContain('development defaults');
        // Production never generates a token secret file.
        expect(existsSync(join(server.dataDir, 'token-secret'))).toBe(false);
      });
    });
  });
});

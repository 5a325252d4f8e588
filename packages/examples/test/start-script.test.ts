// scripts/start.mjs and every example's main.ts: build the package (tsc, as `pnpm build` does),
// then start examples by name in a child process on PORT=0 and request them.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const startScript = join(pkg, 'scripts', 'start.mjs');
const exampleDirs = readdirSync(join(pkg, 'src'))
  .filter((d) => /^\d{2}-/.test(d))
  .sort();

/** One request per example that only that example's app answers, with its exact status. */
const PROBES: Record<string, { path: string; status: number }> = {
  '01-hello': { path: '/hello/Ada', status: 200 },
  '02-api-key': { path: '/health', status: 200 },
  '03-cors': { path: '/api/items', status: 200 },
  '04-gzip': { path: '/api/ping', status: 200 },
  '05-ordering': { path: '/ordering', status: 200 },
  '06-name-binding': { path: '/api/reports/count', status: 200 },
  '07-dynamic-feature': { path: '/api/v1/users', status: 200 },
  '08-param-converter': { path: '/api/books', status: 200 },
  '09-exception-mapper': { path: '/api/accounts/alice', status: 200 },
  '10-custom-body': { path: '/api/sales', status: 200 },
  '11-context-resolver': { path: '/api/status', status: 200 },
  '12-streaming': { path: '/api/export?rows=3', status: 200 },
  '13-testing': { path: '/api/profile', status: 200 },
  '14-observability': { path: '/api/metrics', status: 200 },
  '15-dependency-injection': { path: '/api/scope/request', status: 200 },
  '16-limits-and-shutdown': { path: '/api/limits', status: 200 },
  '17-routing': { path: '/items/42', status: 200 },
  '18-inheritance': { path: '/cats', status: 200 },
  '19-sub-resources': { path: '/projects/apollo/tasks/1', status: 200 },
  '20-deadlines': { path: '/reports/quick', status: 200 },
  '21-conditional-requests': { path: '/docs/readme', status: 200 },
  '22-parameter-objects': { path: '/shops/7/products', status: 200 },
  '23-links-and-uris': { path: '/api/books/1', status: 200 },
  '24-multipart': { path: '/files/1/bundle', status: 404 },
  '25-server-sent-events': { path: '/chat/messages', status: 200 },
  '26-openapi': { path: '/openapi.json', status: 200 },
  '27-client': { path: '/shop/books/1', status: 200 },
  '28-every-core': { path: '/whoami', status: 200 },
  '29-logging': { path: '/api/orders/1', status: 200 },
  '30-metrics': { path: '/api/orders/1', status: 200 },
  '31-tracing': { path: '/shop/products/tea', status: 200 },
  '32-health': { path: '/health/ready', status: 200 },
  '33-ranges': { path: '/media/notes', status: 200 },
  '34-jwt': { path: '/demo/token', status: 200 },
  '35-rate-limits': { path: '/health', status: 200 },
  '36-security-headers': { path: '/api/users', status: 200 },
};

/** Guards every loop over the examples: an empty or drifted list must not pass vacuously. */
const expectAllExamples = (): void => {
  expect(exampleDirs).toHaveLength(36);
  expect(exampleDirs).toEqual(Object.keys(PROBES).sort());
};

/** Starts an example by name and resolves with its URL once it printed `listening on ...`. */
function startExample(name: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [startScript, name], {
    cwd: pkg,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in 15 s: ${out}${err}`));
    }, 15_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${out}${err}`));
    });
  });
}

/** SIGTERM, and wait for the graceful exit (code 0). */
function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('scripts/start.mjs', () => {
  beforeAll(async () => {
    await run(process.execPath, [join(pkg, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: pkg });
  }, 120_000);

  it('lists every example when no name is given', async () => {
    const { stdout } = await run(process.execPath, [startScript], { cwd: pkg });
    expectAllExamples();
    for (const dir of exampleDirs) expect(stdout).toContain(`${dir.slice(0, 2)}  ${dir.slice(3)}`);
  });

  it('an unknown name exits 1 and lists the examples on stderr', async () => {
    const failed = await run(process.execPath, [startScript, 'no-such-example'], { cwd: pkg }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('Unknown example "no-such-example"');
    expect(failed?.stderr).toContain('01  hello');
  });

  it('every example starts by name from dist/, prints its URL and stops gracefully on SIGTERM', async () => {
    expectAllExamples();
    for (const dir of exampleDirs) {
      const { child, url } = await startExample(dir.slice(3));
      try {
        // No example serves the root: the pipeline's own 404 proves the server is up.
        const root = await request(`${url}/`);
        expect(await root.body.json()).toMatchObject({ status: 404, code: 'PIPE_NO_MATCH' });
        expect(root.statusCode).toBe(404);
        // A route of this example's own: the right app was started, not just some server.
        const probe = PROBES[dir]!;
        const res = await request(`${url}${probe.path}`);
        await res.body.dump();
        expect([dir, res.statusCode]).toEqual([dir, probe.status]);
      } finally {
        expect(await stop(child)).toBe(0);
      }
    }
  }, 120_000);

  it('hello by number serves its JSON', async () => {
    const { child, url } = await startExample('1');
    try {
      const res = await request(`${url}/hello/Ada`);
      expect(await res.body.json()).toEqual({ message: 'Hello, Ada!', lang: 'en' });
    } finally {
      await stop(child);
    }
  });
});

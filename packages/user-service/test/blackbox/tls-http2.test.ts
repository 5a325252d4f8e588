/**
 * The service started with TLS_CERT_FILE, TLS_KEY_FILE and HTTP2=true: curl negotiates h2 with
 * the test CA, and an HTTP/1.1 client is served on the same port; `listening on https://...`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, startServer, type RunningServer } from '../helpers/server.js';
import { TEST_CERT_FILE, TEST_KEY_FILE } from '../helpers/tls.js';

const run = promisify(execFile);

async function curl(args: string[], url: string): Promise<{ status: number; version: string; body: string }> {
  const { stdout } = await run('curl', [
    '-sS',
    '--max-time',
    '10',
    '--cacert',
    TEST_CERT_FILE,
    '-w',
    '\n%{http_code} %{http_version}',
    ...args,
    url,
  ]);
  const nl = stdout.lastIndexOf('\n');
  const [status, version] = stdout.slice(nl + 1).split(' ');
  return { status: Number(status), version: version!, body: stdout.slice(0, nl) };
}

describe('the service over TLS and HTTP/2', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      env: { STORAGE: 'memory', TLS_CERT_FILE: TEST_CERT_FILE, TLS_KEY_FILE: TEST_KEY_FILE, HTTP2: 'true', LOG_REQUESTS: 'false' },
    });
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    removeDir(server.dataDir);
  });

  it('announces an https URL', () => {
    expect(server.stdout.some((l) => l.startsWith(`listening on https://127.0.0.1:${server.port}`))).toBe(true);
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
  });

  it('answers curl --http2 over h2 (a GET and a POST with its Location)', async () => {
    const users = await curl(['--http2', '-H', 'x-api-key: test-api-key-123'], `https://localhost:${server.port}/api/users`);
    expect(users.status).toBe(200);
    expect(users.version).toBe('2');
    expect(Array.isArray(JSON.parse(users.body))).toBe(true);
    const created = await curl(
      [
        '--http2',
        '-D',
        '-',
        '-H',
        'content-type: application/json',
        '-H',
        'x-api-version: 1',
        '--data-binary',
        '{"email":"tess.tls@example.com","firstName":"Tess","lastName":"Tls"}',
      ],
      `https://localhost:${server.port}/api/users`,
    );
    expect(created.status).toBe(201);
    expect(created.version).toBe('2');
    expect(created.body).toMatch(new RegExp(`^location: https://localhost:${server.port}/api/users/\\d+\\r$`, 'im'));
  });

  it('serves an HTTP/1.1 client on the same port', async () => {
    const health = await curl(['--http1.1'], `https://localhost:${server.port}/api/users`);
    expect(health.status).toBe(200);
    expect(health.version).toBe('1.1');
  });
});

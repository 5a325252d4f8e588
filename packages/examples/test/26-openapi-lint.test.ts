/**
 * Example 26's served document passes Redocly CLI's `lint` with the recommended rules (0 errors):
 * summaries, `security: []` on public operations, a server, described tags. Run offline from this
 * package's `node_modules/.bin` (telemetry and update check off, a local config file).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/26-openapi/app.js';
import { listen, send, type Running } from './helpers/http.js';

const run = promisify(execFile);
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('26 OpenAPI: Redocly lint of the served document', { timeout: 60_000 }, () => {
  let server: Running;
  const dir = mkdtempSync(join(tmpdir(), 'example-26-lint-'));
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has 0 errors with the recommended rules', async () => {
    const res = await send(server.url, '/openapi.json');
    expect(res.status).toBe(200);
    const document = join(dir, 'openapi.json');
    writeFileSync(document, res.text);
    const args = ['lint', '--config', join(PACKAGE_DIR, 'test', 'helpers', 'redocly.yaml'), '--format', 'json', document];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    let code = 0;
    let stdout = '';
    let stderr = '';
    try {
      ({ stdout, stderr } = await run(join(PACKAGE_DIR, 'node_modules', '.bin', 'redocly'), args, { env, timeout: 60_000 }));
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      code = err.code ?? -1;
      stdout = err.stdout ?? '';
      stderr = err.stderr ?? String(e);
    }
    const report = JSON.parse(stdout) as { totals: { errors: number } };
    expect(report.totals.errors, stdout).toBe(0);
    expect(code, stderr).toBe(0);
  });
});

/**
 * Swagger UI at `/docs` (the pipeline's OpenApiFeature `docsPath`, served when `swagger-ui-dist` is
 * installed beside the service; README "Endpoints"). Over a real socket: the page and its files
 * with their headers, and, without the package (a copy of the build whose `node_modules` lacks it),
 * the library's 404 naming the package. In a real browser: the system Chromium, headless, driven
 * by `playwright-core`, loads the page from the server, which then fetches `/openapi.json` and
 * renders the operations, with no console error (a Content Security Policy violation is one).
 * Without Chromium (`CHROMIUM_PATH`, default `/usr/bin/chromium`) the browser test is skipped,
 * except under CI, where it fails (`.ci/run` installs the `chromium` package).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { agent, http, MAIN, removeDir, startServer, type RunningServer } from '../helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PACKAGE_DIR = dirname(dirname(MAIN));

describe('Swagger UI at /docs', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ env: { SEED: 'none' } });
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('serves the page under a strict Content Security Policy, and its files', async () => {
    // Straight requests: the docs page is not an operation of the document, which http() checks answers against.
    const page = await request(`${server.url}/docs`, { dispatcher: agent });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(await page.body.text()).toContain('data-url="/openapi.json"');
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['init.js', 'text/javascript; charset=utf-8'],
    ]) {
      const r = await request(`${server.url}/docs/${file}`, { dispatcher: agent });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toBe(type);
      expect((await r.body.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
    'renders the operations in a real browser, the document loaded from /openapi.json, without console errors',
    async () => {
      expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
      let browser: Browser | undefined;
      try {
        browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, timeout: 20_000 });
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('console', (message) => {
          // The browser asks for /favicon.ico by itself; the service has none (a 404 the page did not make).
          if (message.type() === 'error' && new URL(message.location().url || 'about:blank').pathname !== '/favicon.ico')
            errors.push(message.text());
        });
        page.on('pageerror', (error) => errors.push(error.message));
        const documentLoaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/openapi.json', { timeout: 20_000 });
        const response = await page.goto(`${server.url}/docs`, { timeout: 20_000 });
        expect(response?.status()).toBe(200);
        expect((await documentLoaded).status()).toBe(200);

        const operation = (path: string) => page.locator(`.opblock-summary-path[data-path="${path}"]`);
        await operation('/api/async/users/jobs/{id}/events').waitFor({ state: 'visible', timeout: 20_000 });
        await expect(operation('/api/users/{id}').first().isVisible()).resolves.toBe(true);
        // The first path of the job events is shown deprecated (OpenAPI `deprecated: true`).
        const deprecated = (path: string) => page.locator(`.opblock-deprecated [data-path="${path}"]`).count();
        expect(await deprecated('/api/async/users/{jobId}/events')).toBe(1);
        expect(await deprecated('/api/async/users/jobs/{id}/events')).toBe(0);
        expect(await page.locator('.info .title').innerText()).toContain('User service');
        expect(errors).toEqual([]);
      } finally {
        await browser?.close();
      }
    },
    60_000,
  );

  it("without swagger-ui-dist installed, /docs answers the library's 404 naming the package", async () => {
    // A copy of the build beside a node_modules with the service's dependencies only.
    const dir = mkdtempSync(join(tmpdir(), 'user-service-no-docs-'));
    let bare: RunningServer | undefined;
    try {
      cpSync(join(PACKAGE_DIR, 'dist'), join(dir, 'dist'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      const { dependencies } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const name of Object.keys(dependencies)) {
        mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
        symlinkSync(realpathSync(join(PACKAGE_DIR, 'node_modules', name)), join(dir, 'node_modules', name), 'dir');
      }
      expect(existsSync(join(dir, 'node_modules', 'swagger-ui-dist'))).toBe(false);
      bare = await startServer({ main: join(dir, 'dist', 'main.js'), env: { SEED: 'none' } });
      for (const path of ['/docs', '/docs/swagger-ui-bundle.js']) {
        const r = await http(bare.url, 'GET', path); // a 404 on a path the document does not list passes its check
        expect(r.status).toBe(404);
        expect(r.json()).toMatchObject({ status: 404, path });
        expect(r.json<{ message: string }>().message).toContain('swagger-ui-dist');
      }
      expect((await http(bare.url, 'GET', '/openapi.json')).status).toBe(200);
    } finally {
      if (bare !== undefined) {
        expect(await bare.stop('SIGTERM')).toBe(0);
        removeDir(bare.dataDir);
      }
      removeDir(dir);
    }
  });
});

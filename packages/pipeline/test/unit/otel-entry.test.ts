/**
 * `@opentelemetry/api` is an optional peer dependency needed only by `@jaxrs-node/pipeline/otel`:
 * the BUILT main entry's (and the client entry's) import graph never reaches it or the otel
 * folder, and importing the otel entry where the API is not installed fails at once with what to
 * install (while the main entry still loads).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = join(PKG, 'dist');

/** The root test command builds first; a developer running this file alone gets a build here. */
function ensureBuilt(): void {
  if (existsSync(join(DIST, 'features', 'otel', 'index.js'))) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: PKG, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('pipeline build failed');
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every file reached from `entry` through static and dynamic imports, and every package specifier met. */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  }
  return { files, packages };
}

const otelFiles = (files: Set<string>): string[] => [...files].filter((f) => f.startsWith(join(DIST, 'features', 'otel')));

describe('@opentelemetry/api stays behind the otel entry point', () => {
  beforeAll(ensureBuilt);

  it("the built main and client entries' import graphs never reach @opentelemetry/api or the otel folder", () => {
    for (const entry of [join(DIST, 'index.js'), join(DIST, 'client', 'index.js')]) {
      const { files, packages } = importGraph(entry);
      expect(files.size).toBeGreaterThan(20);
      expect([...packages].filter((p) => p.startsWith('@opentelemetry/'))).toEqual([]);
      expect(otelFiles(files)).toEqual([]);
    }
  });

  it('the checker sees the API from the otel entry (it would notice a leak), and the otel entry does not load undici', () => {
    const { files, packages } = importGraph(join(DIST, 'features', 'otel', 'index.js'));
    expect(files.has(join(DIST, 'features', 'otel', 'api.js'))).toBe(true);
    expect(readFileSync(join(DIST, 'features', 'otel', 'api.js'), 'utf8')).toContain("require('@opentelemetry/api')");
    expect([...packages].filter((p) => p === 'undici' || p === 'busboy')).toEqual([]);
  });

  describe('in a project without @opentelemetry/api', () => {
    let project: string;
    beforeAll(() => {
      project = mkdtempSync(join(tmpdir(), 'pipeline-no-otel-'));
      const pkgDir = join(project, 'node_modules', '@jaxrs-node', 'pipeline');
      mkdirSync(pkgDir, { recursive: true });
      cpSync(join(PKG, 'package.json'), join(pkgDir, 'package.json'));
      cpSync(DIST, join(pkgDir, 'dist'), { recursive: true });
      // The runtime dependencies, but not the optional peer.
      for (const dep of ['reflect-metadata', 'tsyringe'])
        symlinkSync(join(PKG, 'node_modules', dep), join(project, 'node_modules', dep), 'dir');
    });
    afterAll(() => rmSync(project, { recursive: true, force: true }));

    // Without NODE_PATH: the test runner's points into the workspace's store, where the API is.
    const { NODE_PATH: _ignored, ...env } = process.env;
    const load = (specifier: string) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)}); console.log('loaded');`], {
        cwd: project,
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });

    it('the project really has no @opentelemetry/api', () => {
      const r = load('@opentelemetry/api');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('ERR_MODULE_NOT_FOUND');
    });

    it('the main entry loads', () => {
      const r = load('@jaxrs-node/pipeline');
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('loaded');
    });

    it('the otel entry fails at import, naming the package to install', () => {
      const r = load('@jaxrs-node/pipeline/otel');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('@jaxrs-node/pipeline/otel needs the package @opentelemetry/api');
      expect(r.stderr).toContain('npm install @opentelemetry/api');
    });
  });
});

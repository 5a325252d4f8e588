/**
 * For the tests that keep an optional peer dependency behind its own entry point (undici behind
 * `./client`, `@opentelemetry/api` behind `./otel`, busboy behind `./multipart`): the import graph
 * of a built entry, and a project that has the package's runtime dependencies but no optional peer,
 * where a program can try to load an entry.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pipeline package's folder. */
export const PIPELINE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Its build output. */
export const DIST = join(PIPELINE_DIR, 'dist');

/** The bundles the package's `exports` name (scripts/bundle.mjs): what an application loads. */
export const BUNDLE = join(DIST, 'bundle');

/** The root test command builds first; a developer running one file alone gets a build here when `probe` (a built file) or the bundle is missing. */
export function ensureBuilt(probe: string): void {
  if (existsSync(probe) && existsSync(join(BUNDLE, 'index.js'))) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: PIPELINE_DIR, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('pipeline build failed');
  const b = spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: PIPELINE_DIR, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('pipeline bundle failed');
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every file reached from `entry` through static and dynamic imports, and every package specifier met (as written: `undici/package.json`). */
export function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
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

/** The package a bare specifier names: `busboy/lib/x` -> `busboy`, `@scope/pkg/sub` -> `@scope/pkg`. */
export const packageName = (spec: string): string => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);

/**
 * A fresh temporary project (named `prefix` + random) whose node_modules holds a copy of the
 * pipeline's `package.json` under `@jaxrs-node/pipeline` (its `dist` is the caller's to put at
 * `pkgDir/dist`) and links to the runtime dependencies, but not the optional peers. The caller
 * removes it.
 */
export function projectWithoutPeers(prefix: string): { project: string; pkgDir: string } {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const pkgDir = join(project, 'node_modules', '@jaxrs-node', 'pipeline');
  mkdirSync(pkgDir, { recursive: true });
  cpSync(join(PIPELINE_DIR, 'package.json'), join(pkgDir, 'package.json'));
  // The runtime dependencies, but not the optional peers.
  for (const dep of ['reflect-metadata', 'tsyringe'])
    symlinkSync(realpathSync(join(PIPELINE_DIR, 'node_modules', dep)), join(project, 'node_modules', dep), 'dir');
  return { project, pkgDir };
}

/**
 * Runs `code` as an ES module with this Node in `project` (bounded: 30 s). Without NODE_PATH: the
 * test runner's (the package manager's bin shims set it) points into the workspace's store, where
 * every optional peer is.
 */
export function nodeIn(project: string, code: string): SpawnSyncReturns<string> {
  const { NODE_PATH: _ignored, ...env } = process.env;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: project, env, encoding: 'utf8', timeout: 30_000 });
}

#!/usr/bin/env node
// The fast loop beside the full gate (scripts/test.mjs): vitest only, no type-check, lint or
// format check. `node scripts/test-quick.mjs run|watch [vitest arguments...]`, from the root
// scripts `test:quick` / `test:watch` and every package's `test` / `test:watch`:
//   pnpm test:quick packages/pipeline/test/unit/media-type.test.ts
//   pnpm test:quick --project pipeline -t 'Vary'
//   pnpm --filter @jaxrs-node/pipeline test test/unit/media-type.test.ts   (paths relative to the package)
// Tests run against built code where it matters: the service's and the examples' tests start
// their `dist/` programs, and every package imports @jaxrs-node/pipeline through its `dist/`.
// So before vitest starts, each package the chosen projects need is rebuilt when its sources
// are newer than its `dist/` (a scan of file times, a few ms when nothing changed; `tsc` only for
// the stale ones). TEST_QUICK_BUILD=0 skips that and only warns. Watch mode does not rebuild on
// later changes: run `pnpm --filter <package> run build` (or `pnpm -r run build`) for those.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Package directory (under packages/) -> its name and what its build reads. */
const PACKAGES = {
  pipeline: { name: '@jaxrs-node/pipeline', inputs: ['src', 'scripts', 'tsconfig.build.json', 'package.json'] },
  'user-service': { name: '@jaxrs-node/user-service', inputs: ['src', 'tsconfig.build.json', 'package.json'] },
  examples: { name: '@jaxrs-node/examples', inputs: ['src', 'tsconfig.build.json', 'package.json'] },
};
/** Vitest project (vitest.workspace.ts) -> the packages whose dist/ its tests use, in build order. */
const NEEDS = {
  pipeline: ['pipeline'],
  'user-service': ['pipeline', 'user-service'],
  'user-service-etcd': ['pipeline', 'user-service'],
  examples: ['pipeline', 'examples'],
};

const [mode, ...given] = process.argv.slice(2);
if (mode !== 'run' && mode !== 'watch') {
  console.error('usage: node scripts/test-quick.mjs run|watch [vitest arguments...]');
  process.exit(2);
}

// A package script runs in its package directory: paths given there become root-relative.
const callerDir = process.cwd();
const args = given.map((arg) => {
  if (arg.startsWith('-') || callerDir === ROOT) return arg;
  const path = resolve(callerDir, arg);
  return existsSync(path) ? relative(ROOT, path) : arg;
});

/** The projects this run selects: every `--project`, else those of the paths given, else all. */
function chosenProjects() {
  const named = [];
  args.forEach((arg, i) => {
    if (arg === '--project' && args[i + 1] !== undefined) named.push(args[i + 1]);
    else if (arg.startsWith('--project=')) named.push(arg.slice('--project='.length));
  });
  if (named.length > 0) return named.filter((p) => p in NEEDS);
  const paths = args.filter((arg, i) => !arg.startsWith('-') && !(args[i - 1] ?? '').startsWith('-'));
  const fromPaths = paths.map((p) => (isAbsolute(p) ? relative(ROOT, p) : p).split(/[\\/]/));
  if (fromPaths.length > 0 && fromPaths.every((parts) => parts[0] === 'packages' && parts[1] !== undefined && parts[1] in PACKAGES)) {
    return [...new Set(fromPaths.map((parts) => parts[1]))];
  }
  return Object.keys(NEEDS);
}

/** Newest change time (content or rename) under `path`, 0 when absent. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return Math.max(stat.mtimeMs, stat.ctimeMs);
  let time = stat.mtimeMs; // a file deleted or renamed away changes its directory
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** Newest write time under `dist/`, 0 when there is none. */
function built(dir) {
  const dist = join(dir, 'dist');
  if (!existsSync(dist)) return 0;
  let time = 0;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else time = Math.max(time, statSync(child).mtimeMs);
    }
  };
  walk(dist);
  return time;
}

const order = [...new Set(chosenProjects().flatMap((project) => NEEDS[project] ?? []))];
const stale = order.filter((pkg) => {
  const dir = join(ROOT, 'packages', pkg);
  return Math.max(...PACKAGES[pkg].inputs.map((input) => newest(join(dir, input)))) > built(dir);
});
if (stale.length > 0) {
  const list = stale.map((pkg) => PACKAGES[pkg].name).join(', ');
  if (process.env.TEST_QUICK_BUILD === '0') {
    console.warn(`test-quick: dist/ older than src/ in ${list}; these tests run the built code (TEST_QUICK_BUILD=0: not rebuilt)`);
  } else {
    console.log(`test-quick: rebuilding ${list} (src/ newer than dist/; these tests run the built code)`);
    for (const pkg of stale) {
      const r = spawnSync('pnpm', ['--filter', PACKAGES[pkg].name, 'run', 'build'], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) {
        console.error(`test-quick: the build of ${PACKAGES[pkg].name} failed`);
        process.exit(r.status ?? 1);
      }
    }
  }
}

const r = spawnSync('pnpm', ['exec', 'vitest', mode, '--config', 'vitest.workspace.ts', ...args], {
  cwd: ROOT,
  stdio: 'inherit',
});
process.exit(r.status ?? 1);

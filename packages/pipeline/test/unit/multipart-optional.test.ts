// busboy is an optional peer dependency: an application that never imports
// `@jaxrs-node/pipeline/multipart` must not need it. The package is compiled from the sources into
// a fresh project that has reflect-metadata and tsyringe but no busboy; there the main entry loads,
// its import graph never reaches the multipart folder or busboy, and the multipart entry fails
// with a message that says what to install.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGraph, nodeIn, packageName, PIPELINE_DIR, projectWithoutPeers } from '../helpers/entry-graph.js';

const exec = promisify(execFile);

describe('busboy is optional', { timeout: 60_000 }, () => {
  let project: string;
  let dist: string;

  beforeAll(async () => {
    const made = projectWithoutPeers('jaxrs-no-busboy-');
    project = made.project;
    dist = join(made.pkgDir, 'dist');
    const tsc = join(PIPELINE_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
    await exec(process.execPath, [tsc, '-p', join(PIPELINE_DIR, 'tsconfig.build.json'), '--outDir', dist], { cwd: PIPELINE_DIR });
    await exec(process.execPath, [join(PIPELINE_DIR, 'scripts', 'bundle.mjs'), dist], { cwd: PIPELINE_DIR });
  }, 60_000);

  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  /** The program's stdout, trimmed; throws when it fails. */
  const run = (code: string): string => {
    const r = nodeIn(project, code);
    if (r.status !== 0) throw new Error(`node exited with ${r.status ?? r.signal}: ${r.stderr}`);
    return r.stdout.trim();
  };

  it('the project really has no busboy', () => {
    expect(run("import('busboy').then(() => 'found', (e) => e.code).then(console.log)")).toBe('ERR_MODULE_NOT_FOUND');
  });

  it("the main entry's import graph reaches neither src/features/multipart nor busboy", () => {
    const { files, packages } = importGraph(join(dist, 'index.js'));
    expect(files.size).toBeGreaterThan(20);
    expect([...files].map((f) => relative(dist, f)).filter((f) => f.startsWith(join('features', 'multipart')))).toEqual([]);
    expect([...packages].map(packageName).sort()).not.toContain('busboy');
    const multipart = importGraph(join(dist, 'features', 'multipart', 'index.js'));
    expect(multipart.files.has(join(dist, 'features', 'multipart', 'busboy.js'))).toBe(true); // the check can see it
    // The bundles the package's exports name: the same split.
    expect([...importGraph(join(dist, 'bundle', 'index.js')).packages].map(packageName)).not.toContain('busboy');
    const bundled = importGraph(join(dist, 'bundle', 'features', 'multipart', 'index.js'));
    expect([...bundled.files].some((f) => readFileSync(f, 'utf8').match(/require\(\s*['"]busboy['"]\s*\)/) !== null)).toBe(true);
  });

  it('the main entry loads and serves without busboy', () => {
    const code = `
      import 'reflect-metadata';
      import { Application, GET, Path } from '@jaxrs-node/pipeline';
      class R { hi() { return { ok: true }; } }
      GET()(R.prototype, 'hi', Object.getOwnPropertyDescriptor(R.prototype, 'hi'));
      Path('/hi')(R);
      const app = new Application({ resources: [R] });
      const r = await app.inject({ url: '/hi' });
      console.log(r.status, r.text());`;
    expect(run(code)).toBe('200 {"ok":true}');
  });

  it('importing @jaxrs-node/pipeline/multipart without busboy names the package and how to install it', () => {
    const out = run("import('@jaxrs-node/pipeline/multipart').then(() => 'loaded', (e) => e.message).then(console.log)");
    expect(out).toContain('@jaxrs-node/pipeline/multipart needs the package busboy');
    expect(out).toContain('npm install busboy');
  });
});

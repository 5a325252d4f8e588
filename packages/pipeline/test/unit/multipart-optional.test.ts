// busboy is an optional peer dependency: an application that never imports
// `@jaxrs-node/pipeline/multipart` must not need it. The package is compiled from the sources into
// a fresh project that has reflect-metadata and tsyringe but no busboy; there the main entry loads,
// its import graph never reaches the multipart folder or busboy, and the multipart entry fails
// with a message that says what to install.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const pipelineDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every file `entry` reaches through relative imports (static and dynamic), and every bare specifier. */
async function importGraph(entry: string): Promise<{ files: Set<string>; packages: Set<string> }> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return { files, packages };
}

describe('busboy is optional', { timeout: 60_000 }, () => {
  let project: string;
  let dist: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'jaxrs-no-busboy-'));
    const pkg = join(project, 'node_modules', '@jaxrs-node', 'pipeline');
    dist = join(pkg, 'dist');
    await mkdir(pkg, { recursive: true });
    await copyFile(join(pipelineDir, 'package.json'), join(pkg, 'package.json'));
    const tsc = join(pipelineDir, 'node_modules', 'typescript', 'bin', 'tsc');
    await exec(process.execPath, [tsc, '-p', join(pipelineDir, 'tsconfig.build.json'), '--outDir', dist], { cwd: pipelineDir });
    for (const dep of ['reflect-metadata', 'tsyringe']) {
      await symlink(await realpath(join(pipelineDir, 'node_modules', dep)), join(project, 'node_modules', dep), 'dir');
    }
  }, 60_000);

  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  // Without NODE_PATH: the package manager's bin shims set it to the store's hoisted packages, busboy included.
  const run = async (code: string): Promise<string> =>
    (
      await exec(process.execPath, ['--input-type=module', '-e', code], { cwd: project, env: { ...process.env, NODE_PATH: '' } })
    ).stdout.trim();

  it('the project really has no busboy', async () => {
    expect(await run("import('busboy').then(() => 'found', (e) => e.code).then(console.log)")).toBe('ERR_MODULE_NOT_FOUND');
  });

  it("the main entry's import graph reaches neither src/features/multipart nor busboy", async () => {
    const { files, packages } = await importGraph(join(dist, 'index.js'));
    expect(files.size).toBeGreaterThan(20);
    expect([...files].map((f) => relative(dist, f)).filter((f) => f.startsWith(join('features', 'multipart')))).toEqual([]);
    expect([...packages].sort()).not.toContain('busboy');
    const multipart = await importGraph(join(dist, 'features', 'multipart', 'index.js'));
    expect(multipart.files.has(join(dist, 'features', 'multipart', 'busboy.js'))).toBe(true); // the check can see it
  });

  it('the main entry loads and serves without busboy', async () => {
    const code = `
      import 'reflect-metadata';
      import { Application, GET, Path } from '@jaxrs-node/pipeline';
      class R { hi() { return { ok: true }; } }
      GET()(R.prototype, 'hi', Object.getOwnPropertyDescriptor(R.prototype, 'hi'));
      Path('/hi')(R);
      const app = new Application({ resources: [R] });
      const r = await app.inject({ url: '/hi' });
      console.log(r.status, r.text());`;
    expect(await run(code)).toBe('200 {"ok":true}');
  });

  it('importing @jaxrs-node/pipeline/multipart without busboy names the package and how to install it', async () => {
    const out = await run("import('@jaxrs-node/pipeline/multipart').then(() => 'loaded', (e) => e.message).then(console.log)");
    expect(out).toContain('@jaxrs-node/pipeline/multipart needs the package busboy');
    expect(out).toContain('npm install busboy');
  });
});

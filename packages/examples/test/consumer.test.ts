// The published shape, as a real user outside the workspace gets it: `pnpm pack` the pipeline,
// install the tarball with npm into a fresh project next to reflect-metadata, tsyringe,
// typescript and @types/node from the registry, compile a small service with that project's own
// tsc, run it with node and call it. This proves the `exports` map (root and ./testing), the
// shipped .d.ts files, decorator metadata through the compiled package and the dependencies.
// One install per run of this file (beforeAll); network goes to the npm registry only.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CJS_CONSUMER_FILES, CONSUMER_FILES } from './helpers/consumer-project.js';
import { FOREIGN_REFERENCE } from './helpers/foreign-reference.js';

const exec = promisify(execFile);
const pipelineDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pipeline');
const INSTALL_TIMEOUT = 180_000;

/** Runs a command in `cwd`; on failure the error message carries its output. */
async function sh(cwd: string, file: string, args: string[], timeout = 60_000): Promise<string> {
  try {
    const { stdout } = await exec(file, args, { cwd, timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
    return stdout;
  } catch (e) {
    const err = e as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}\n${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

/** Starts `node dist/main.js` and resolves once it printed its URL. */
function startService(cwd: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['dist/main.js'], { cwd, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in 15 s:\n${out}`));
    }, 15_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${out}`));
    });
  });
}

describe('consumer: the packed @jaxrs-node/pipeline in a fresh npm project', { timeout: INSTALL_TIMEOUT }, () => {
  let project: string;
  let cjsProject: string;
  let tarballEntries: string[];

  beforeAll(async () => {
    if (!existsSync(join(pipelineDir, 'dist', 'index.js'))) {
      throw new Error('packages/pipeline/dist is missing: run `npx tsc -p tsconfig.build.json` in packages/pipeline first');
    }
    project = await mkdtemp(join(tmpdir(), 'jaxrs-consumer-'));
    const packs = join(project, 'packs');
    await mkdir(packs);
    await sh(pipelineDir, 'pnpm', ['pack', '--pack-destination', packs]);
    const tarballs = (await readdir(packs)).filter((f) => f.endsWith('.tgz'));
    expect(tarballs).toHaveLength(1);
    const tarball = join(packs, tarballs[0]!);
    tarballEntries = (await sh(project, 'tar', ['-tzf', tarball])).split('\n').filter((l) => l !== '');

    for (const [path, text] of Object.entries(CONSUMER_FILES(tarball))) {
      await mkdir(dirname(join(project, path)), { recursive: true });
      await writeFile(join(project, path), text);
    }
    cjsProject = join(project, 'cjs');
    for (const [path, text] of Object.entries(CJS_CONSUMER_FILES(tarball))) {
      await mkdir(dirname(join(cjsProject, path)), { recursive: true });
      await writeFile(join(cjsProject, path), text);
    }
    const install = ['install', '--no-audit', '--no-fund', '--loglevel=error'];
    await Promise.all([sh(project, 'npm', install, INSTALL_TIMEOUT - 20_000), sh(cjsProject, 'npm', install, INSTALL_TIMEOUT - 20_000)]);
    await sh(project, process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
    await sh(cjsProject, process.execPath, [join(cjsProject, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  }, INSTALL_TIMEOUT);

  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });

  it('the tarball ships dist (js + d.ts), README, LICENSE and package.json, and no sources, tests or source maps', () => {
    expect(tarballEntries).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/LICENSE',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/testing/index.js',
        'package/dist/testing/index.d.ts',
      ]),
    );
    expect(
      tarballEntries.filter(
        (e) => !e.startsWith('package/dist/') && !['package/package.json', 'package/README.md', 'package/LICENSE'].includes(e),
      ),
    ).toEqual([]);
    // Maps would point at sources the package does not ship.
    expect(tarballEntries.filter((e) => e.endsWith('.map'))).toEqual([]);
  });

  it("the service compiled with the consumer's tsc runs: path + query params, request filter, JSON writer", async () => {
    const { child, url } = await startService(project);
    try {
      const ok = await fetch(`${url}/greet/Ada?times=2`, { headers: { 'x-tenant': 'acme' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('application/json');
      // timesType 'number' proves design:paramtypes metadata survived the consumer's compile.
      expect(await ok.json()).toEqual({ greeting: 'Hello, Ada! Hello, Ada!', times: 2, timesType: 'number', tenant: 'acme' });

      const refused = await fetch(`${url}/greet/Ada`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'X-Tenant header required' });

      const bad = await fetch(`${url}/greet/Ada?times=two`, { headers: { 'x-tenant': 'acme' } });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: 'PIPE_PARAM_CONVERSION' });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('the ./testing entry point resolves, with its types, and unit-tests the filter', async () => {
    const out = JSON.parse(await sh(project, process.execPath, ['dist/unit.js'])) as unknown;
    expect(out).toEqual({ abortedWith: 400, passedTenant: 'acme' });
  });

  it('a CommonJS project compiles against the package and loads it with require() (require(esm))', async () => {
    const compiled = await readFile(join(cjsProject, 'dist', 'main.js'), 'utf8');
    expect(compiled).toContain('require("@jaxrs-node/pipeline")');
    const out = JSON.parse(await sh(cjsProject, process.execPath, ['dist/main.js'])) as unknown;
    expect(out).toEqual({ status: 200, body: { twice: 42, type: 'number' }, moduleKind: 'function' });
  });

  it('nothing in the tarball refers to a file outside the repository or to a machine path', async () => {
    const unpacked = join(project, 'unpacked');
    await mkdir(unpacked);
    const tarball = join(project, 'packs', (await readdir(join(project, 'packs')))[0]!);
    await sh(project, 'tar', ['-xzf', tarball, '-C', unpacked]);
    const offenders: string[] = [];
    for (const entry of tarballEntries.filter((e) => !e.endsWith('/'))) {
      const text = await readFile(join(unpacked, entry), 'utf8');
      if (FOREIGN_REFERENCE.test(text)) offenders.push(entry);
    }
    expect(offenders).toEqual([]);
  });

  it('the exports map hides the package internals', async () => {
    const probe = "import('@jaxrs-node/pipeline/dist/core/application.js').then(() => console.log('open'), (e) => console.log(e.code))";
    expect((await sh(project, process.execPath, ['--input-type=module', '-e', probe])).trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
});

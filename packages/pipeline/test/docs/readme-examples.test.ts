/**
 * The code in the docs is what users copy: every ```ts block of the pipeline's README, of its
 * `docs/` pages and of the repository's README that is a complete program (its first line is an `import`; the other
 * blocks are fragments) compiles with the repository's `tsc` as a new user's project would: the
 * settings `tsc --init` writes, plus what the README's Installation section adds (legacy
 * decorators with metadata, NodeNext modules, Node's types) and `"type": "module"`, against the
 * BUILT package. All blocks compile in one `tsc` run; the typed-client example then runs as written.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = resolve(PKG, '../..');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/** One code block: where it is (README and line) and its text. */
interface Block {
  readonly name: string;
  readonly file: string;
  readonly code: string;
}

/** The complete programs among the ```ts blocks of `readme` (path relative to the repository). */
function programsOf(readme: string, prefix: string): Block[] {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const blocks: Block[] = [];
  for (const m of text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)) {
    const code = m[1]!;
    if (!/^import\s/.test(code.trimStart())) continue; // a fragment
    const line = text.slice(0, m.index).split('\n').length;
    blocks.push({ name: `${readme}:${line}`, file: `${prefix}-${line}.ts`, code });
  }
  return blocks;
}

/** The pipeline's concept pages, each a source of programs like the READMEs. */
const DOCS = readdirSync(join(PKG, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort();

const blocks = [
  ...programsOf('packages/pipeline/README.md', 'pipeline'),
  ...DOCS.flatMap((f) => programsOf(`packages/pipeline/docs/${f}`, `docs-${f.replace(/\.md$/, '')}`)),
  ...programsOf('README.md', 'root'),
];

/** The packages a user installs (the README's Installation), linked from the workspace. */
const LINKS: ReadonlyArray<readonly [string, string]> = [
  ['@jaxrs-node/pipeline', PKG],
  ['reflect-metadata', join(PKG, 'node_modules', 'reflect-metadata')],
  ['tsyringe', join(PKG, 'node_modules', 'tsyringe')],
  ['undici', join(PKG, 'node_modules', 'undici')],
  ['busboy', join(PKG, 'node_modules', 'busboy')],
  ['@types/node', join(PKG, 'node_modules', '@types', 'node')],
  ['@types/busboy', join(PKG, 'node_modules', '@types', 'busboy')],
  // The tracing page's program: the API and the SDK packages an operator installs.
  ['@opentelemetry/api', join(PKG, 'node_modules', '@opentelemetry', 'api')],
  ['@opentelemetry/sdk-trace-base', join(PKG, 'node_modules', '@opentelemetry', 'sdk-trace-base')],
  ['@opentelemetry/context-async-hooks', join(PKG, 'node_modules', '@opentelemetry', 'context-async-hooks')],
  ['@opentelemetry/core', join(PKG, 'node_modules', '@opentelemetry', 'core')],
];

describe('README code blocks that are complete programs compile under strict settings', () => {
  let project: string;
  let errors: Map<string, string[]>;
  let output = '';

  beforeAll(() => {
    if (!existsSync(join(PKG, 'dist', 'index.d.ts')) || !existsSync(join(PKG, 'dist', 'client', 'index.js'))) {
      const r = spawnSync(TSC, ['-p', 'tsconfig.build.json'], { cwd: PKG, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('pipeline build failed');
    }
    project = mkdtempSync(join(tmpdir(), 'readme-examples-'));
    for (const [name, target] of LINKS) {
      const link = join(project, 'node_modules', name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(realpathSync(target), link, 'dir');
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }));
    // What `tsc --init` of this TypeScript writes, as a user starts...
    const init = spawnSync(TSC, ['--init'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(init.status, init.stdout + init.stderr).toBe(0);
    renameSync(join(project, 'tsconfig.json'), join(project, 'tsconfig.init.json'));
    // ...plus the README's Installation settings.
    const settings = {
      extends: './tsconfig.init.json',
      compilerOptions: {
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        outDir: 'dist',
        rootDir: '.',
      },
      include: ['*.ts'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(settings, null, 2));
    for (const b of blocks) writeFileSync(join(project, b.file), b.code);
    const r = spawnSync(TSC, ['-p', '.', '--pretty', 'false'], { cwd: project, encoding: 'utf8', timeout: 120_000 });
    output = r.stdout + r.stderr;
    errors = new Map();
    for (const line of output.split('\n')) {
      const m = /^([\w.-]+\.ts)\(\d+,\d+\): error /.exec(line);
      if (m !== null) errors.set(m[1]!, [...(errors.get(m[1]!) ?? []), line]);
    }
  }, 180_000);
  afterAll(() => {
    if (project !== undefined) rmSync(project, { recursive: true, force: true });
  });

  it('finds the programs: the root twenty lines, the quick start, multipart, typed clients', () => {
    expect(DOCS).toContain('client.md');
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    expect(blocks.some((b) => b.code.includes("from '@jaxrs-node/pipeline/client'"))).toBe(true);
    expect(blocks.some((b) => b.code.includes("from '@jaxrs-node/pipeline/multipart'"))).toBe(true);
    // Errors outside the blocks (a bad setting) would fail every file silently: none.
    expect(output.split('\n').filter((l) => l.includes('error') && !/^[\w.-]+\.ts\(/.test(l))).toEqual([]);
  });

  it.each(blocks.map((b) => [b.name, b] as const))('%s compiles', (_name, block) => {
    expect(errors.get(block.file) ?? []).toEqual([]);
  });

  it('the typed-client example runs as written: it starts its server, calls it through the client, and exits', () => {
    // The typed-client page's program (the tracing sections make clients too, but do not run them).
    const block = blocks.find((b) => b.code.includes('createClient(') && b.code.includes('Dune'));
    expect(block).toBeDefined();
    const { NODE_PATH: _ignored, ...env } = process.env;
    const r = spawnSync(process.execPath, [join('dist', block!.file.replace(/\.ts$/, '.js'))], {
      cwd: project,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Dune/);
  });
});

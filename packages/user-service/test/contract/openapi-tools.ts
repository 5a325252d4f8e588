/**
 * Runs the OpenAPI tools a client author would (Redocly CLI's `lint` with the recommended rules,
 * openapi-typescript, the repository's tsc) on a document, from this package's own
 * `node_modules/.bin`, offline: Redocly's telemetry and update check are off, so no run reaches
 * the network.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(PACKAGE_DIR, 'node_modules', '.bin');
const OFFLINE = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** What a tool printed and how it exited. */
export interface ToolRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` (a path, or a name in this package's `node_modules/.bin`). */
async function tool(command: string, args: readonly string[], cwd = PACKAGE_DIR): Promise<ToolRun> {
  try {
    const { stdout, stderr } = await run(isAbsolute(command) ? command : join(BIN, command), args, {
      cwd,
      env: OFFLINE,
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: unknown; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

/**
 * A fresh directory under this package's `node_modules/.cache` (ignored by git), so that files
 * written there resolve `openapi-fetch` and `@types/node` from this package.
 */
export function workDir(): string {
  const root = join(PACKAGE_DIR, 'node_modules', '.cache');
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, 'openapi-client-'));
}

/** `redocly lint` with the recommended rules; `totals` from its JSON report. */
export async function redoclyLint(document: string): Promise<ToolRun & { totals: { errors: number; warnings: number } | undefined }> {
  const config = join(PACKAGE_DIR, 'test', 'contract', 'redocly.yaml');
  const r = await tool('redocly', ['lint', '--config', config, '--format', 'json', document]);
  let totals: { errors: number; warnings: number } | undefined;
  try {
    totals = (JSON.parse(r.stdout) as { totals: { errors: number; warnings: number } }).totals;
  } catch {
    totals = undefined;
  }
  return { ...r, totals };
}

/**
 * `openapi-typescript document -o output`, run by node with the TypeScript 5 compiler API it
 * needs (see typescript-5.mjs).
 */
export function openapiTypescript(document: string, output: string): Promise<ToolRun> {
  const cli = join(PACKAGE_DIR, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  const hook = pathToFileURL(join(PACKAGE_DIR, 'test', 'contract', 'typescript-5.mjs')).href;
  return tool(process.execPath, ['--import', hook, cli, document, '-o', output]);
}

/** The repository's tsc on `files` of `dir`, strict (the repository's own settings), as an ES module project. */
export function typecheck(dir: string, files: readonly string[]): Promise<ToolRun> {
  const compilerOptions = {
    noEmit: true,
    strict: true,
    noUncheckedIndexedAccess: true,
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['es2022', 'dom'],
    types: ['node'],
    skipLibCheck: true,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  return tool('tsc', ['-p', join(dir, 'tsconfig.json')], dir);
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { inject } from 'vitest';
import { contractOf, type Contract } from './openapi-contract.js';

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = join(PACKAGE_DIR, 'dist/main.js');

/** The root test command builds first; a developer running vitest alone gets a build here. */
export function ensureBuilt(): void {
  if (existsSync(MAIN)) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: PACKAGE_DIR, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('user-service build failed');
}

/** A real server process on an ephemeral port. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly process: ChildProcess;
  /** Every stdout line so far (access log, startup lines). */
  readonly stdout: string[];
  readonly stderr: string[];
  /** Sends a signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** The script to run; default {@link MAIN} (a copy of the build elsewhere, say). */
  main?: string;
  /** Reuse a data directory (restart tests); default a fresh temp dir. */
  dataDir?: string;
  /** Give up waiting for `listening on` after this many ms. */
  timeoutMs?: number;
}

/**
 * Starts `node dist/main.js` with PORT=0 and a temp DATA_DIR, waits for the `listening on` line
 * (never a sleep), and returns its URL.
 */
async function startOne(options: StartOptions, onLine: (line: string) => void): Promise<RunningServer> {
  ensureBuilt();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'user-service-'));
  const child = spawn(process.execPath, [options.main ?? MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let scheme = 'http';
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${stderr.join('\n')}`)), options.timeoutMs ?? 15_000);
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        stdout.push(line);
        onLine(line);
        const m = /listening on (https?):\/\/[^:]+:(\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          scheme = m[1]!;
          resolvePort(Number(m[2]));
        }
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        stderr.push(line);
        onLine(line);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stderr.join('\n')}`));
    });
  });
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    dataDir,
    process: child,
    stdout,
    stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Starts `node dist/main.js` with PORT=0 and a temp DATA_DIR, waits for the `listening on` line
 * (never a sleep), and returns its URL.
 *
 * Under `BLACKBOX_STORE=etcd` (the `user-service-etcd` project) a server is TWO instances sharing
 * the project's three-member etcd cluster (one key prefix and one FILES_DIR per server), and
 * {@link http} alternates its requests between them; `stdout` holds the lines of both, `stop()`
 * stops both, and starting again with the returned `dataDir` restarts both on the same data.
 * A test that sets `STORAGE` itself gets one process as usual.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  if (process.env.BLACKBOX_STORE !== 'etcd' || options.env?.STORAGE !== undefined) {
    let server: RunningServer | undefined;
    server = await startOne(options, (line) => notify(server, line));
    return server;
  }
  return startPair(options);
}

/** The shared-store settings of each pair, by its data dir (a restart reuses them). */
const pairs = new Map<string, { prefix: string; filesDir: string }>();
/** Where {@link http} sends the next request of a pair, by the pair's URL. */
const rotation = new Map<string, { urls: string[]; next: number }>();
/** Line listeners of {@link waitForLine}, by server. */
const lineListeners = new WeakMap<RunningServer, Set<() => void>>();

function notify(server: RunningServer | undefined, _line: string): void {
  if (server === undefined) return;
  for (const listener of lineListeners.get(server) ?? []) listener();
}

/** A secret both instances of a pair share (tokens signed by one verify on the other). */
const PAIR_TOKEN_SECRET = 'pair-token-secret-for-black-box-tests-0123456789';

async function startPair(options: StartOptions): Promise<RunningServer> {
  const endpoints = inject('etcdEndpoints');
  if (typeof endpoints !== 'string' || endpoints === '')
    throw new Error('BLACKBOX_STORE=etcd needs the etcd global setup (vitest.etcd.config.ts)');
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'user-service-pair-'));
  let shared = pairs.get(dataDir);
  if (shared === undefined) {
    shared = { prefix: `/black-box/${randomUUID()}`, filesDir: join(dataDir, 'files') };
    pairs.set(dataDir, shared);
  }
  const env = {
    STORAGE: 'etcd',
    ETCD_ENDPOINTS: endpoints,
    ETCD_PREFIX: shared.prefix,
    FILES_DIR: shared.filesDir,
    TOKEN_SECRET: PAIR_TOKEN_SECRET,
    ...options.env,
  };
  const stdout: string[] = [];
  let server: RunningServer | undefined;
  const onLine = (line: string): void => {
    stdout.push(line);
    notify(server, line);
  };
  const dirs = ['a', 'b'].map((name) => join(dataDir, name));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const [a, b] = await Promise.all(dirs.map((dir) => startOne({ ...options, env, dataDir: dir }, onLine)));
  rotation.set(a!.url, { urls: [a!.url, b!.url], next: 0 });
  server = {
    url: a!.url,
    port: a!.port,
    dataDir,
    process: a!.process,
    stdout,
    stderr: stdout,
    stop: async (signal) => {
      const [first, second] = await Promise.all([a!.stop(signal), b!.stop(signal)]);
      rotation.delete(a!.url);
      return first === 0 ? second : first;
    },
  };
  return server;
}

/** The base URL a request to `base` goes to: the next instance of a pair, else `base`. */
function target(base: string): string {
  const pair = rotation.get(base);
  if (pair === undefined) return base;
  const url = pair.urls[pair.next % pair.urls.length] as string;
  pair.next++;
  return url;
}

/** Removes a temp data dir. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export const agent = new Agent({ keepAliveTimeout: 2000, headersTimeout: 10_000, bodyTimeout: 10_000 });

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = any>(): T;
}

/** One request with undici; JSON bodies are serialised with their Content-Type. */
export async function http(
  base: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | Buffer | undefined;
  if (init.body === undefined) body = undefined;
  else if (typeof init.body === 'string' || Buffer.isBuffer(init.body)) body = init.body as string | Buffer;
  else {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${target(base)}${path}`, { method: method as 'GET', headers, body, dispatcher: agent });
  const text = await res.body.text();
  const result: HttpResult = { status: res.statusCode, headers: res.headers as HttpResult['headers'], text, json: () => JSON.parse(text) };
  await checkContract(base, method, path, result);
  return result;
}

/**
 * Every answer the black-box suite receives through {@link http} is checked against the OpenAPI
 * document the server under test serves (its operation, status, media type and JSON body must be
 * documented): an undocumented status or a body that does not match fails the test that received
 * it. A path the document does not know may only be answered 404 or 405. `CONTRACT=off` skips it.
 */
const contracts = new Map<string, Promise<Contract | undefined>>();

async function checkContract(base: string, method: string, path: string, res: HttpResult): Promise<void> {
  if (process.env.CONTRACT === 'off' || path === '/openapi.json') return;
  let contract = contracts.get(base);
  if (contract === undefined) {
    contract = loadContract(base);
    contracts.set(base, contract);
  }
  const c = await contract;
  if (c === undefined) return;
  const problems = c
    .problems(method, path, res)
    .filter((p) => !(p.endsWith('no documented operation') && (res.status === 404 || res.status === 405)));
  if (problems.length > 0) throw new Error(`the answer contradicts the OpenAPI document:\n${problems.join('\n')}`);
}

async function loadContract(base: string): Promise<Contract | undefined> {
  const res = await request(`${base}/openapi.json`, { dispatcher: agent });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return undefined;
  }
  return contractOf((await res.body.json()) as Record<string, unknown>);
}

/** Waits (event-driven, bounded) until a stdout line satisfies `match`; resolves with it parsed as JSON when possible. */
export function waitForLine(server: RunningServer, match: (line: string) => boolean, timeoutMs = 5000): Promise<string> {
  const found = server.stdout.find(match);
  if (found !== undefined) return Promise.resolve(found);
  let listeners = lineListeners.get(server);
  if (listeners === undefined) lineListeners.set(server, (listeners = new Set()));
  const registered = listeners;
  return new Promise((resolveLine, reject) => {
    const timer = setTimeout(() => {
      registered.delete(onLine);
      reject(new Error('log line not seen in time'));
    }, timeoutMs);
    // Called after the harness has split the output into lines (of every instance of a pair).
    const onLine = (): void => {
      const line = server.stdout.find(match);
      if (line === undefined) return;
      clearTimeout(timer);
      registered.delete(onLine);
      resolveLine(line);
    };
    registered.add(onLine);
  });
}

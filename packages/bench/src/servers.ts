/**
 * The servers the runner measures, as data: adding a server (for example the user-service) is
 * one more entry here, or one more object in a JSON file named by `BENCH_EXTRA`.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { workloadServers } from './workloads.js';

/**
 * One server to measure. The runner picks a free port, starts `cmd args` pinned to the server
 * core with `PORT=<port>` in the environment, waits until it is ready, then loads `url`.
 */
export interface ServerSpec {
  /** Name in the table; `bare` and `fastify` are the ratio baselines. */
  name: string;
  /** Executable, e.g. `node`. */
  cmd: string;
  /** Arguments; relative paths resolve against the bench package directory (the cwd). */
  args: string[];
  /** URL to load; `{port}` is replaced by the chosen port. Must point at 127.0.0.1. */
  url: string;
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /**
   * How readiness is seen: a regex source matched against stdout lines (default `^ready\b`), or
   * `poll` to GET `url` every 100 ms until it answers 2xx (for servers that print nothing useful).
   */
  ready?: string;
  /** Response headers the sanity request must carry. */
  expectHeaders?: string[];
  /** A filter variant: the sanity check also sends one request the request filter refuses (403 + the filter header). */
  filters?: boolean;
  /** Request headers sent with every request (sanity and load), e.g. `{ "x-api-key": "..." }`. */
  headers?: Record<string, string>;
  /** Request method (default `GET`). */
  method?: string;
  /** Request body sent with every request (with a `content-type` in `headers`). */
  body?: string;
  /**
   * Every `[<id>]` in `body` becomes a new id per request (autocannon's `idReplacement`: 33
   * characters of `[A-Za-z0-9_-]`), e.g. an e-mail address that must be new for every create.
   */
  idReplacement?: boolean;
  /** The status every answer must have (a 304 workload); any 2xx when absent. */
  status?: number;
}

/** What a load run sends and expects, from a {@link ServerSpec}. */
export interface LoadRequest {
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  idReplacement?: boolean;
  status?: number;
}

/** The request part of `spec`. */
export function requestOf(spec: ServerSpec): LoadRequest {
  return { headers: spec.headers, method: spec.method, body: spec.body, idReplacement: spec.idReplacement, status: spec.status };
}

/** The body of one request sent outside autocannon (the sanity request): `[<id>]` replaced as autocannon would, by a new id. */
export function oneBody(spec: ServerSpec): string | undefined {
  if (spec.body === undefined || spec.idReplacement !== true) return spec.body;
  const id = `sanity${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  return spec.body.replaceAll('[<id>]', id);
}

const USER_URL = 'http://127.0.0.1:{port}/api/users/1';

/** The built-in servers, in the order they run within a round. */
export const SERVERS: readonly ServerSpec[] = [
  { name: 'bare', cmd: 'node', args: ['dist/bare.js'], url: USER_URL },
  { name: 'bare-filters', cmd: 'node', args: ['dist/bare-filters.js'], url: USER_URL, filters: true },
  { name: 'fastify', cmd: 'node', args: ['dist/fastify.js'], url: USER_URL },
  { name: 'fastify-hooks', cmd: 'node', args: ['dist/fastify-hooks.js'], url: USER_URL, filters: true },
  { name: 'pipeline', cmd: 'node', args: ['dist/pipeline.js'], url: USER_URL },
  { name: 'pipeline-filters', cmd: 'node', args: ['dist/pipeline-filters.js'], url: USER_URL, filters: true },
  { name: 'fastify-pino', cmd: 'node', args: ['dist/fastify-pino.js'], url: USER_URL },
  { name: 'pipeline-ops', cmd: 'node', args: ['dist/pipeline-ops.js'], url: USER_URL, expectHeaders: ['x-request-id'] },
  { name: 'pipeline-context', cmd: 'node', args: ['dist/pipeline-context.js'], url: USER_URL },
  {
    name: 'pipeline-secure',
    cmd: 'node',
    args: ['dist/pipeline-secure.js'],
    url: USER_URL,
    expectHeaders: ['ratelimit', 'ratelimit-policy', 'x-content-type-options', 'content-security-policy'],
  },
];

/**
 * The servers for this run: the built-ins plus the entries of the JSON array in `BENCH_EXTRA`
 * (a path), filtered by `BENCH_ONLY` (comma-separated names) when set. With `BENCH_WORKLOAD` set
 * (workloads.ts), the API peers loaded with that workload replace the built-ins.
 * @throws Error for an unreadable or malformed extra file, or an unknown name in `BENCH_ONLY`.
 */
export function selectServers(env: NodeJS.ProcessEnv, cwd: string): ServerSpec[] {
  const workload = env.BENCH_WORKLOAD;
  const all = workload === undefined || workload === '' ? [...SERVERS] : workloadServers(workload);
  const extra = env.BENCH_EXTRA;
  if (extra !== undefined && extra !== '') {
    const file = isAbsolute(extra) ? extra : resolve(cwd, extra);
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!Array.isArray(parsed)) throw new Error(`${file}: expected a JSON array of servers`);
    for (const s of parsed) all.push(checkSpec(s, file));
  }
  const names = new Set(all.map((s) => s.name));
  if (names.size !== all.length) throw new Error('server names must be unique');
  const only = env.BENCH_ONLY;
  if (only === undefined || only === '') return all;
  const wanted = only
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const w of wanted) if (!names.has(w)) throw new Error(`BENCH_ONLY: unknown server ${w}`);
  return all.filter((s) => wanted.includes(s.name));
}

function checkSpec(value: unknown, file: string): ServerSpec {
  const s = value as Partial<ServerSpec> | null;
  const ok =
    s !== null &&
    typeof s === 'object' &&
    typeof s.name === 'string' &&
    typeof s.cmd === 'string' &&
    Array.isArray(s.args) &&
    s.args.every((a) => typeof a === 'string') &&
    typeof s.url === 'string';
  if (!ok) throw new Error(`${file}: each server needs name, cmd, args (strings) and url`);
  const host = new URL(s.url!.replace('{port}', '1')).hostname;
  if (host !== '127.0.0.1') throw new Error(`${file}: ${s.name} must load 127.0.0.1, not ${host}`);
  const h = s.headers;
  if (h !== undefined && (typeof h !== 'object' || h === null || Object.values(h).some((v) => typeof v !== 'string'))) {
    throw new Error(`${file}: ${s.name}.headers must map names to strings`);
  }
  return s as ServerSpec;
}

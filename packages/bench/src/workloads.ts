/**
 * The write-path workloads (issue 27) as runner input: `BENCH_WORKLOAD=<name>` replaces the
 * built-in servers with the API peers (`api/*.ts`: bare `node:http`, Fastify 5, NestJS 11 on
 * Fastify and on Express, the pipeline), each loaded with the workload's request. The peers keep
 * the names the tables use as baselines (`bare`, `fastify`), so `bench` and `instructions` work
 * unchanged.
 */
import { CREATE_BODY, etagOf } from './api/model.js';
import type { ServerSpec } from './servers.js';

/** One workload: the request every peer is loaded with and the status it must answer. */
export interface Workload {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** The status every answer must have (any 2xx when absent). */
  status: number;
  /** What it measures, for the tables' captions. */
  title: string;
}

/** The workloads by name. `tagged` is the 200 that `conditional`'s 304 replaces. */
export const WORKLOADS: Readonly<Record<string, Workload>> = {
  create: {
    method: 'POST',
    path: '/api/users',
    body: CREATE_BODY,
    headers: { 'content-type': 'application/json' },
    status: 201,
    title: 'validated create: POST /api/users, 4 checks, 201 + Location + six-field JSON',
  },
  post: {
    method: 'POST',
    path: '/api/users/unchecked',
    body: CREATE_BODY,
    headers: { 'content-type': 'application/json' },
    status: 201,
    title: 'JSON POST without validation: 201 + Location + six-field JSON',
  },
  list: { method: 'GET', path: '/api/users', status: 200, title: 'a 50-item JSON list' },
  tagged: { method: 'GET', path: '/api/users/7', status: 200, title: 'GET one user with an ETag, answered 200' },
  conditional: {
    method: 'GET',
    path: '/api/users/7',
    headers: { 'if-none-match': etagOf(7) },
    status: 304,
    title: 'conditional GET, If-None-Match matching: 304',
  },
};

/** The API peers, by table name: the same routes and answers (proved by `api/check.ts`). */
export const API_PEERS: readonly { name: string; args: string[]; env?: Record<string, string> }[] = [
  { name: 'bare', args: ['dist/api/bare.js'] },
  { name: 'fastify', args: ['dist/api/fastify.js'] },
  { name: 'nest-fastify', args: ['dist/api/nest.js'], env: { NEST_ADAPTER: 'fastify' } },
  { name: 'nest-express', args: ['dist/api/nest.js'], env: { NEST_ADAPTER: 'express' } },
  { name: 'pipeline', args: ['dist/api/pipeline.js'] },
];

/** The peers as servers loaded with `workload`'s request. */
export function workloadServers(name: string): ServerSpec[] {
  const w = WORKLOADS[name];
  if (w === undefined) throw new Error(`BENCH_WORKLOAD must be one of ${Object.keys(WORKLOADS).join(', ')}, got ${name}`);
  return API_PEERS.map((p) => ({
    name: p.name,
    cmd: 'node',
    args: p.args,
    url: `http://127.0.0.1:{port}${w.path}`,
    ...(p.env === undefined ? {} : { env: p.env }),
    method: w.method,
    ...(w.body === undefined ? {} : { body: w.body }),
    ...(w.headers === undefined ? {} : { headers: w.headers }),
    status: w.status,
  }));
}

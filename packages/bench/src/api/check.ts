/**
 * Every API peer gives the same answers (`pnpm --filter @jaxrs-node/bench run check-workloads`,
 * a few seconds): starts each peer of workloads.ts, fires the same sequence of requests at each
 * (the workloads' own requests, then invalid bodies) and compares every answer with the
 * hand-written server's: status; `Location` (the host made neutral, ports differ); `ETag`; the
 * JSON body, except that a 400's body is compared by the fields its violations name, in order
 * (each validator words its messages its own way), and a 304 must have none. Exits 1 on any
 * difference. The runners measure a workload only if this passes.
 */
import { stop } from '../proc.js';
import { PKG_DIR, spawnServer } from '../runner-util.js';
import { selectServers, type ServerSpec } from '../servers.js';
import { API_PEERS, WORKLOADS, workloadServers } from '../workloads.js';
import { CREATE_BODY, INVALID_BODY } from './model.js';

/** One request of the sequence. */
interface Probe {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const post = (name: string, body: string, path = '/api/users'): Probe => ({ name, method: 'POST', path, body, headers: JSON_HEADERS });

/** The sequence: ids of created users depend on the order, so it is the same for every peer. */
const PROBES: readonly Probe[] = [
  ...Object.entries(WORKLOADS).map(([name, w]) => ({ name, method: w.method, path: w.path, body: w.body, headers: w.headers })),
  post('all four checks fail', INVALID_BODY),
  post('every field missing', '{}'),
  post('age below the range', '{"email":"bo@example.com","firstName":"Bo","lastName":"Li","age":17}'),
  post('age not an integer', '{"email":"bo@example.com","firstName":"Bo","lastName":"Li","age":30.5}'),
  post('first name too long', `{"email":"bo@example.com","firstName":"${'x'.repeat(51)}","lastName":"Li","age":30}`),
  post('e-mail not a string', '{"email":7,"firstName":"Bo","lastName":"Li","age":30}'),
  post('valid again', CREATE_BODY),
];

/** What is compared of one answer. */
interface Answer {
  status: number;
  location: string | null;
  etag: string | null;
  body: unknown;
}

async function ask(base: string, p: Probe): Promise<Answer> {
  const res = await fetch(`${base}${p.path}`, { method: p.method, body: p.body, headers: p.headers, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  const location = res.headers.get('location')?.replace(/^http:\/\/127\.0\.0\.1:\d+/, 'http://HOST') ?? null;
  let body: unknown = text;
  if (text !== '') body = JSON.parse(text) as unknown;
  if (res.status === 400) body = violationFields(body);
  return { status: res.status, location, etag: res.headers.get('etag'), body };
}

/** A 400 body's violation fields in order, each once (`errors` or NestJS's `message` array). */
function violationFields(body: unknown): string[] | unknown {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return body;
  const fields = errors.map((e) => (e as { field?: unknown }).field);
  return fields.filter((f, i) => fields.indexOf(f) === i);
}

async function answersOf(spec: ServerSpec): Promise<Answer[]> {
  const server = await spawnServer(spec, { prefix: [], runtimeArgs: [], readyMs: 15_000 });
  try {
    await server.ready();
    const base = new URL(server.url).origin;
    const out: Answer[] = [];
    for (const p of PROBES) out.push(await ask(base, p));
    return out;
  } catch (e) {
    throw new Error(`${spec.name}: ${(e as Error).message}\n${server.io.stderr().slice(-2000)}`);
  } finally {
    await stop(server.child);
  }
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const specs =
    only === undefined || only === '' ? workloadServers('create') : selectServers({ ...process.env, BENCH_WORKLOAD: 'create' }, PKG_DIR);
  const reference = await answersOf(specs.find((s) => s.name === 'bare') ?? workloadServers('create')[0]!);
  let failures = 0;
  for (const spec of specs) {
    if (spec.name === 'bare') continue;
    const answers = await answersOf(spec);
    PROBES.forEach((p, i) => {
      const a = JSON.stringify(answers[i]);
      const b = JSON.stringify(reference[i]);
      if (a !== b) {
        failures += 1;
        process.stderr.write(`${spec.name}, ${p.name}:\n  got      ${a.slice(0, 400)}\n  expected ${b.slice(0, 400)}\n`);
      }
    });
    process.stderr.write(`${spec.name}: ${answers.length} answers compared\n`);
  }
  if (failures > 0) throw new Error(`${failures} answers differ from the hand-written server's`);
  process.stdout.write(`same answers: ${API_PEERS.map((p) => p.name).join(', ')} (${PROBES.length} requests each)\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

/**
 * What the typed client costs per call (`pnpm --filter @jaxrs-node/bench run client-overhead`):
 * a proxy call of `@jaxrs-node/pipeline/client` (`proxy`: one request filter adding a header, one
 * response filter checking one, a JSON entity in and a JSON entity out) against the same request
 * made by hand (the header set and checked inline) with `undici.request` + `JSON.parse` (`raw`),
 * and with the leanest undici call (`lean`: `agent.request({ origin, path })`, which skips the URL
 * parsing of `undici.request`, and the body collected with `for await`, not `body.text()`), all on
 * an undici `Agent` with the same settings, against a bare `node:http` echo server in its own process.
 * `proxy / lean` is the client's own cost; `proxy / raw` the comparison the target is set against.
 *
 * 1. Throughput and client CPU, paired: one client process (pinned to `CLIENT_CPU`, default 0;
 *    the server to `SERVER_CPU`, default 1) warms the three up, then runs `CLIENT_ROUNDS` rounds
 *    (each variant once, the order rotating every round) of `CLIENT_CALLS` calls with
 *    `CLIENT_CONCURRENCY` in flight. Per run: calls per second and the client process's CPU time
 *    per call (`process.cpuUsage`, user + system). Reported: medians, and the medians of the
 *    per-round ratios proxy / raw and proxy / lean (each ratio taken within one round, seconds
 *    apart, so host drift cancels).
 * 2. Instructions per call (`CLIENT_INSTRUCTIONS=1`, needs valgrind): each variant runs alone
 *    under callgrind, `CLIENT_INSTR_WARMUP` calls, counters zeroed, `CLIENT_INSTR_CALLS` calls
 *    counted on the main thread (as `instructions.ts` does for servers).
 *
 * The target is at most 10% more client CPU per call than the hand-written request.
 */
import 'reflect-metadata';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { Consumes, PathParam, POST, Path, Produces } from '@jaxrs-node/pipeline';
import {
  Client,
  type ClientRequestContext,
  type ClientRequestFilter,
  type ClientResponse,
  type ClientResponseFilter,
} from '@jaxrs-node/pipeline/client';
import { median } from './load.js';
import { pinning } from './proc.js';
import { intEnv } from './runner-util.js';

const SELF = fileURLToPath(import.meta.url);

interface User {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
}
const user = (id: number): User => ({ id, firstName: 'John', lastName: 'Doe', email: 'test@example.com' });

// ---- the server: POST /echo/{id} answers the JSON body with the id, and the x-bench-filter header

function serve(): void {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = Number(req.url!.slice('/echo/'.length));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as User;
      const out = JSON.stringify({ ...body, id, echoed: req.headers['x-bench'] === '1' });
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(out),
        'x-bench-filter': 'seen',
      });
      res.end(out);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

// ---- the two clients

const unused = (): never => {
  throw new Error('contract method');
};

@Path('/echo')
abstract class Echo {
  @POST('{id}') @Consumes('application/json') @Produces('application/json') echo(
    @PathParam('id') _id: number,
    _user: User,
  ): Promise<User & { echoed: boolean }> {
    return unused();
  }
}

class AddHeader implements ClientRequestFilter {
  filterClientRequest(request: ClientRequestContext): void {
    request.headers['x-bench'] = '1';
  }
}
class CheckHeader implements ClientResponseFilter {
  filterClientResponse(_request: ClientRequestContext, response: ClientResponse): void {
    if (response.headers['x-bench-filter'] !== 'seen') throw new Error('the server did not answer the filter header');
  }
}

/** The agent settings the client uses by default, so both variants pool alike. */
const AGENT = { connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 };

type Call = (id: number) => Promise<User & { echoed: boolean }>;

function rawCall(base: string): { call: Call; close: () => Promise<void> } {
  const agent = new Agent(AGENT);
  return {
    call: async (id) => {
      const res = await request(`${base}/echo/${id}`, {
        method: 'POST',
        dispatcher: agent,
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-bench': '1' },
        body: JSON.stringify(user(id)),
      });
      if (res.headers['x-bench-filter'] !== 'seen') throw new Error('the server did not answer the filter header');
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      return JSON.parse(await res.body.text()) as User & { echoed: boolean };
    },
    close: () => agent.close(),
  };
}

function leanCall(base: string): { call: Call; close: () => Promise<void> } {
  const agent = new Agent(AGENT);
  return {
    call: async (id) => {
      const res = await agent.request({
        origin: base,
        path: `/echo/${id}`,
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-bench': '1' },
        body: JSON.stringify(user(id)),
      });
      if (res.headers['x-bench-filter'] !== 'seen') throw new Error('the server did not answer the filter header');
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as User & { echoed: boolean };
    },
    close: () => agent.close(),
  };
}

function proxyCall(base: string): { call: Call; close: () => Promise<void> } {
  const client = new Client({ baseUrl: base, providers: [new AddHeader(), new CheckHeader()] });
  const echo = client.proxy(Echo);
  return { call: (id) => echo.echo(id, user(id)), close: () => client.close() };
}

/** Runs `calls` calls with `concurrency` in flight; checks every answer. */
async function run(call: Call, calls: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const id = ++next;
      const r = await call(id);
      if (r.id !== id || !r.echoed) throw new Error(`bad answer for ${id}: ${JSON.stringify(r)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** One measured round: calls per second and client CPU microseconds per call. */
async function measure(call: Call, calls: number, concurrency: number): Promise<{ rate: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run(call, calls, concurrency);
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: calls / seconds, cpuUs: (used.user + used.system) / calls };
}

type Variant = 'raw' | 'lean' | 'proxy';
const VARIANTS: readonly Variant[] = ['raw', 'lean', 'proxy'];
const makers: Record<Variant, (base: string) => { call: Call; close: () => Promise<void> }> = {
  raw: rawCall,
  lean: leanCall,
  proxy: proxyCall,
};

async function paired(base: string): Promise<void> {
  const calls = intEnv('CLIENT_CALLS', 5000, 100, 1_000_000);
  const rounds = intEnv('CLIENT_ROUNDS', 12, 2, 200);
  const concurrency = intEnv('CLIENT_CONCURRENCY', 8, 1, 256);
  const variants = { raw: rawCall(base), lean: leanCall(base), proxy: proxyCall(base) };
  for (const v of Object.values(variants)) await run(v.call, calls, concurrency);
  const results: Record<Variant, Array<{ rate: number; cpuUs: number }>> = { raw: [], lean: [], proxy: [] };
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < VARIANTS.length; i++) {
      const name = VARIANTS[(i + r) % VARIANTS.length]!;
      results[name].push(await measure(variants[name].call, calls, concurrency));
    }
    const line = VARIANTS.map((n) => `${n} ${results[n][r]!.cpuUs.toFixed(1)} us/call ${Math.round(results[n][r]!.rate)}/s`).join(', ');
    process.stderr.write(`round ${r + 1}/${rounds}: ${line}\n`);
  }
  for (const v of Object.values(variants)) await v.close();
  const ratio = (a: Variant, b: Variant, pick: (x: { rate: number; cpuUs: number }) => number): number =>
    Number(median(results[a].map((x, i) => pick(x) / pick(results[b][i]!))).toFixed(3));
  const summary = (n: Variant) => ({
    cpuUsPerCall: Number(median(results[n].map((x) => x.cpuUs)).toFixed(1)),
    callsPerSecond: Math.round(median(results[n].map((x) => x.rate))),
  });
  console.log(
    JSON.stringify({
      calls,
      rounds,
      concurrency,
      raw: summary('raw'),
      lean: summary('lean'),
      proxy: summary('proxy'),
      pairedCpuRatio: { proxyVsRaw: ratio('proxy', 'raw', (x) => x.cpuUs), proxyVsLean: ratio('proxy', 'lean', (x) => x.cpuUs) },
      pairedThroughputRatio: { proxyVsRaw: ratio('proxy', 'raw', (x) => x.rate), proxyVsLean: ratio('proxy', 'lean', (x) => x.rate) },
    }),
  );
}

/** Under callgrind: warm up, say `warm`, wait for `go`, run the counted calls, say `done`, wait for `exit`. */
async function instrumented(variant: Variant, base: string): Promise<void> {
  const v = makers[variant](base);
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  await run(v.call, intEnv('CLIENT_INSTR_WARMUP', 3000, 100, 1_000_000), 1);
  console.log('warm');
  await lines.next();
  await run(v.call, intEnv('CLIENT_INSTR_CALLS', 2000, 100, 1_000_000), 1);
  console.log('done');
  await lines.next();
  await v.close();
  process.exit(0);
}

// ---- the runner

function startChild(prefix: string[], args: string[], stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const argv = [...prefix, process.execPath, SELF, ...args];
  return spawn(argv[0]!, argv.slice(1), { stdio: [stdin, 'pipe', 'inherit'] });
}

/** The first stdout line of `child` matching `pattern` (rejects if it exits first). */
function lineOf(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      const m = pattern.exec(buf);
      if (m !== null) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve(m);
      }
    };
    const onExit = (code: number | null): void => reject(new Error(`child exited (${code}) before printing ${pattern}: ${buf}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

function callgrindControl(flag: '-z' | '-d', pid: number): void {
  const r = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`callgrind_control ${flag} ${pid} failed: ${r.stderr || r.error?.message}`);
}

/** Main-thread instructions per counted call of one variant. */
async function instructions(variant: Variant, base: string, cpu: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-client-instr-'));
  try {
    const tool = ['valgrind', '--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg')}`];
    const argv = [...cpu, ...tool, process.execPath, '--hash-seed=1', '--random-seed=1', SELF, 'instr', variant, base];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    await lineOf(child, /^warm$/m);
    callgrindControl('-z', child.pid!);
    child.stdin!.write('go\n');
    await lineOf(child, /^done$/m);
    callgrindControl('-d', child.pid!);
    child.stdin!.write('exit\n');
    await new Promise((r) => child.once('exit', r));
    const main = readdirSync(dir).find((f) => /^cg\.1-01$/.test(f));
    if (main === undefined) throw new Error(`no callgrind dump for ${variant}`);
    const text = readFileSync(join(dir, main), 'utf8');
    const total = Number(/^totals:\s+(\d+)/m.exec(text)?.[1]);
    return total / intEnv('CLIENT_INSTR_CALLS', 2000, 100, 1_000_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'server') return serve();
  if (mode === 'paired') return paired(process.argv[3]!);
  if (mode === 'instr') return instrumented(process.argv[3] as Variant, process.argv[4]!);
  const server = startChild(pinning(process.env.SERVER_CPU ?? '1'), ['server']);
  try {
    const port = (await lineOf(server, /^ready (\d+)$/m))[1]!;
    const base = `http://127.0.0.1:${port}`;
    const clientPin = pinning(process.env.CLIENT_CPU ?? '0');
    process.stderr.write(`client-overhead: node ${process.version}, server ${base}\n`);
    const client = startChild(clientPin, ['paired', base]);
    const result = (await lineOf(client, /^\{.*\}$/m))[0];
    await new Promise((r) => client.once('exit', r));
    const parsed = JSON.parse(result) as Record<string, unknown>;
    if (process.env.CLIENT_INSTRUCTIONS === '1') {
      const count: Partial<Record<Variant, number>> = {};
      for (const v of VARIANTS) count[v] = Math.round(await instructions(v, base, clientPin));
      parsed.instructions = {
        ...count,
        proxyVsRaw: Number((count.proxy! / count.raw!).toFixed(3)),
        proxyVsLean: Number((count.proxy! / count.lean!).toFixed(3)),
      };
    }
    console.log(JSON.stringify(parsed, null, 2));
  } finally {
    server.kill('SIGTERM');
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

/**
 * GET over HTTP/2 against HTTP/1.1, the pipeline against Fastify 5 (`pnpm --filter
 * @jaxrs-node/bench run h2`): the route of the other runners (`GET /api/users/:id`, a small JSON
 * object), served by `pipeline` and `fastify` over HTTP/1.1 and by `pipeline-h2c` and
 * `fastify-h2c` over h2c, every one loaded by h2load (Debian's `nghttp2-client`) with the same
 * `-n -c -m` (`--h1` for the HTTP/1.1 servers, which then pipeline nothing: `-m` applies to h2 only).
 *
 * 1. Paired rounds: the four servers run at once, pinned to core 0, h2load to core 1; every round
 *    loads each server in turn (the order rotating), so drift of the host hits all alike. Per
 *    server: median req/s, and server CPU per request from /proc.
 * 2. Instructions per request (callgrind, main thread): each server under valgrind, warmed up, its
 *    counters zeroed, then `H2_INSTR_REQUESTS` requests counted; with the part of them spent in
 *    garbage collection (`Heap::CollectGarbage`, inclusive) and the rest.
 *
 * Env: H2_ROUNDS (8), H2_REQUESTS (20000), H2_CONNECTIONS (4), H2_STREAMS (10); H2_PAIRED=0 or
 * H2_INSTR=0 skips a part; H2_INSTR_REQUESTS (5000), H2_INSTR_WARMUP (10000); H2_INSTR_ONLY counts only
 * the servers named by their script (`pipeline-h2c,fastify-h2c`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { control, inclusive, totals } from './callgrind.js';
import { median } from './load.js';
import { cpuSeconds, pinning, stop } from './proc.js';
import { intEnv, spawnServer, type SpawnedServer } from './runner-util.js';
import type { ServerSpec } from './servers.js';

/** The main thread's garbage collections (scavenges and mark-compacts), counted inclusive. */
const GC_FUNCTION = 'v8::internal::Heap::CollectGarbage(';
const URL_TEMPLATE = 'http://127.0.0.1:{port}/api/users/1';
interface H2Server extends ServerSpec {
  h1: boolean;
}
const SERVERS: readonly H2Server[] = [
  { name: 'pipeline (HTTP/1.1)', cmd: 'node', args: ['dist/pipeline.js'], url: URL_TEMPLATE, h1: true },
  { name: 'fastify (HTTP/1.1)', cmd: 'node', args: ['dist/fastify.js'], url: URL_TEMPLATE, h1: true },
  { name: 'pipeline (h2c)', cmd: 'node', args: ['dist/pipeline-h2c.js'], url: URL_TEMPLATE, h1: false },
  { name: 'fastify (h2c)', cmd: 'node', args: ['dist/fastify-h2c.js'], url: URL_TEMPLATE, h1: false },
];

interface Shape {
  requests: number;
  connections: number;
  streams: number;
}

/** One h2load run: req/s, and throws unless every request succeeded with a 2xx. */
function h2load(pin: string[], url: string, h1: boolean, shape: Shape): number {
  const args = ['-n', String(shape.requests), '-c', String(shape.connections), '-m', String(shape.streams), ...(h1 ? ['--h1'] : []), url];
  const argv = [...pin, 'h2load', ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`h2load failed (${r.status}): ${r.stderr || r.error?.message}`);
  const out = r.stdout;
  const done = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
  const codes = /status codes: (\d+) 2xx/.exec(out);
  if (done === null || codes === null) throw new Error(`h2load: unexpected output:\n${out}`);
  const n = shape.requests;
  if (Number(done[2]) !== n || Number(done[3]) + Number(done[4]) + Number(done[5]) > 0 || Number(codes[1]) !== n) {
    throw new Error(`h2load against ${url}: not every request succeeded with 2xx:\n${out}`);
  }
  const rate = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out);
  if (rate === null) throw new Error(`h2load: no req/s in:\n${out}`);
  return Number(rate[1]);
}

async function paired(shape: Shape, rounds: number): Promise<void> {
  const serverPin = pinning('0');
  const loadPin = pinning('1');
  const running: { spec: H2Server; server: SpawnedServer }[] = [];
  try {
    for (const spec of SERVERS) {
      const server = await spawnServer(spec, { prefix: serverPin, runtimeArgs: [], readyMs: 15_000 });
      running.push({ spec, server });
      await server.ready();
      h2load(loadPin, server.url, spec.h1, { ...shape, requests: Math.min(shape.requests, 10_000) }); // warm-up
    }
    const rates = new Map<string, number[]>(SERVERS.map((s) => [s.name, []]));
    const cpu = new Map<string, number[]>(SERVERS.map((s) => [s.name, []]));
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < running.length; i++) {
        const { spec, server } = running[(i + r) % running.length]!;
        const before = cpuSeconds(server.child.pid);
        const rate = h2load(loadPin, server.url, spec.h1, shape);
        const after = cpuSeconds(server.child.pid);
        rates.get(spec.name)!.push(rate);
        if (before !== undefined && after !== undefined) cpu.get(spec.name)!.push(((after - before) / shape.requests) * 1e6);
        process.stderr.write(`round ${r + 1}/${rounds} ${spec.name}: ${rate.toFixed(0)} req/s\n`);
      }
    }
    const h2Fastify = median(rates.get('fastify (h2c)')!);
    process.stdout.write(
      `\nh2load -n ${shape.requests} -c ${shape.connections} -m ${shape.streams} (--h1 for HTTP/1.1), ${rounds} paired rounds, node ${process.version}\n\n`,
    );
    process.stdout.write('| server | median req/s | range | vs fastify (h2c) | server CPU / req |\n|---|---:|---:|---:|---:|\n');
    for (const s of SERVERS) {
      const v = rates.get(s.name)!;
      const c = cpu.get(s.name)!;
      process.stdout.write(
        `| ${s.name} | ${median(v).toFixed(0)} | ${Math.min(...v).toFixed(0)}-${Math.max(...v).toFixed(0)} | ${(median(v) / h2Fastify).toFixed(2)} | ${c.length === 0 ? '-' : `${median(c).toFixed(1)} us`} |\n`,
      );
    }
  } finally {
    for (const { server } of running) await stop(server.child, 5000);
  }
}

async function instructions(shape: Shape, warmup: number, requests: number): Promise<void> {
  const rows: string[] = [];
  const only = process.env.H2_INSTR_ONLY;
  for (const spec of SERVERS.filter(
    (s) => only === undefined || only === '' || only.split(',').some((o) => s.args[0] === `dist/${o}.js`),
  )) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-h2-instr-'));
    try {
      const tool = ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg')}`];
      const server = await spawnServer(spec, {
        prefix: ['valgrind', ...tool],
        // INSTR_NODE_FLAGS as in instructions.ts (e.g. --no-concurrent-recompilation on a busy host).
        runtimeArgs: ['--hash-seed=1', '--random-seed=1', ...(process.env.INSTR_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '')],
        readyMs: 180_000,
      });
      try {
        await server.ready();
        h2load([], server.url, spec.h1, { ...shape, requests: warmup });
        control('-z', server.child.pid!);
        h2load([], server.url, spec.h1, { ...shape, requests });
        control('-d', server.child.pid!);
        const files = readdirSync(dir).filter((f) => /^cg\.1-\d+$/.test(f));
        if (!files.includes('cg.1-01')) throw new Error(`${spec.name}: no callgrind dump`);
        const main = (totals(join(dir, 'cg.1-01')).get('Ir') ?? 0) / requests;
        // Garbage collection on the main thread, apart: how much of it a run does depends on the heap's
        // history (a small heap can promote every stream's objects for a while), not only on the code.
        const gc = inclusive(join(dir, 'cg.1-01'), GC_FUNCTION) / requests;
        // INSTR_KEEP=<dir>: the main thread's dump, for callgrind_annotate (as in instructions.ts).
        const keep = process.env.INSTR_KEEP;
        if (keep !== undefined) cpSync(join(dir, 'cg.1-01'), join(keep, `${spec.args[0]!.replace(/^dist\/|\.js$/g, '')}.callgrind`));
        process.stderr.write(`${spec.name}: ${Math.round(main)} instructions/request, ${Math.round(gc)} in GC\n`);
        rows.push(`| ${spec.name} | ${Math.round(main)} | ${Math.round(gc)} | ${Math.round(main - gc)} |`);
      } finally {
        await stop(server.child, 10_000);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    `\ninstructions / request (callgrind, main thread, ${requests} requests after ${warmup})\n\n| server | instructions / request | of which GC | without GC |\n|---|---:|---:|---:|\n${rows.join('\n')}\n`,
  );
}

async function main(): Promise<void> {
  const shape: Shape = {
    requests: intEnv('H2_REQUESTS', 20_000, 1_000, 10_000_000),
    connections: intEnv('H2_CONNECTIONS', 4, 1, 1000),
    streams: intEnv('H2_STREAMS', 10, 1, 1000),
  };
  if (process.env.H2_PAIRED !== '0') await paired(shape, intEnv('H2_ROUNDS', 8, 1, 100));
  if (process.env.H2_INSTR !== '0') {
    await instructions(shape, intEnv('H2_INSTR_WARMUP', 10_000, 1_000, 1_000_000), intEnv('H2_INSTR_REQUESTS', 5_000, 1_000, 1_000_000));
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

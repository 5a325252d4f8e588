/**
 * Instructions per request, counted by valgrind's callgrind
 * (`pnpm --filter @jaxrs-node/bench run instructions`).
 *
 * Why: on this VM the host's speed drifts by tens of percent within minutes, so req/s ratios need
 * many rounds to resolve a few percent. An instruction count does not drift: it is the same
 * whatever else the machine does, so one run compares two versions of the pipeline exactly
 * enough to keep or drop a change. It is not a throughput number: kernel time (about a third of
 * a request here) is not counted, and an instruction of cold code costs more than one of Node's
 * hot HTTP path. Use it next to `bench`, never instead of it.
 *
 * Per server: start it under callgrind (node with fixed hash and random seeds, so Map layouts
 * and JIT decisions repeat), send `INSTR_WARMUP` requests so the JIT settles, zero the counters,
 * send `INSTR_REQUESTS` requests, dump, and read the server's main-thread total (helper threads:
 * GC and the optimising compiler, reported apart). Repeated `INSTR_ROUNDS` times, order rotating.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAutocannon, unexpectedAnswers } from './autocannon.js';
import { control, totals } from './callgrind.js';
import { toLoadResult } from './load-result.js';
import { median } from './load.js';
import { stop } from './proc.js';
import { check, intEnv, PKG_DIR, spawnServer } from './runner-util.js';
import { selectServers, type ServerSpec } from './servers.js';

/** One server's counts in one round: instructions per request, main thread and all threads; main-thread cache misses per request when simulated. */
interface Count {
  main: number;
  all: number;
  misses: Misses | undefined;
}

/** Simulated cache misses per request (`INSTR_CACHE=1`): L1 instruction, L1 data (reads + writes), last level (all). */
interface Misses {
  i1: number;
  d1: number;
  ll: number;
}

/**
 * Cache geometry for `INSTR_CACHE=1`: this VM's AMD EPYC (32 KiB 8-way L1 instruction and data
 * caches, 64-byte lines; 1 MiB L2 per core as the last level valgrind simulates).
 */
const CACHE_ARGS = ['--cache-sim=yes', '--I1=32768,8,64', '--D1=32768,8,64', '--LL=1048576,16,64'];

/**
 * Sends `amount` requests over `connections` connections; every answer must be 2xx (or the workload's status).
 * Returns the requests answered. A few socket errors (at most 0.5%) are tolerated and reported:
 * on a loaded shared machine the load generator can be starved past the server's 5 s keep-alive
 * timeout, which then closes a connection under it; they are not the server's answers, so the
 * count is divided by the answered requests only.
 */
async function load(url: string, amount: number, spec: ServerSpec, connections: number): Promise<number> {
  // Under valgrind on a loaded shared machine one answer can take longer than autocannon's
  // default 10 s; a timed-out request would fail the count, so wait as long as a round may take.
  const r = await runAutocannon({
    url,
    connections,
    amount,
    timeout: 300,
    headers: spec.headers,
    method: spec.method,
    body: spec.body,
    idReplacement: spec.idReplacement,
  });
  const result = { ...toLoadResult(r), non2xx: unexpectedAnswers(r, spec.status) };
  const tolerated = result.errors - result.timeouts <= amount * 0.005 ? result.errors : 0;
  if (tolerated > 0)
    process.stderr.write(`${spec.name}: ${tolerated} socket errors (connections closed under a starved load generator), not counted\n`);
  check(url, { ...result, errors: result.errors - tolerated }, amount - tolerated);
  return result.total;
}

/** Misses per request from one thread's totals, or undefined without the cache simulation. */
function missesOf(t: Map<string, number>, requests: number): Misses | undefined {
  if (!t.has('I1mr')) return undefined;
  const get = (name: string): number => t.get(name) ?? 0;
  return {
    i1: get('I1mr') / requests,
    d1: (get('D1mr') + get('D1mw')) / requests,
    ll: (get('ILmr') + get('DLmr') + get('DLmw')) / requests,
  };
}

async function countOne(spec: ServerSpec, warmup: number, requests: number, cache: boolean, connections: number): Promise<Count> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-instr-'));
  try {
    // INSTR_NODE_FLAGS: extra node flags for every server, e.g. `--no-concurrent-recompilation`: the
    // optimising compiler then runs on the main thread during the warm-up, so a loaded host (which
    // starves its background threads and leaves code unoptimised longer) does not move the count.
    const extra = (process.env.INSTR_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
    const seeds = spec.cmd === 'node' ? ['--hash-seed=1', '--random-seed=1', ...extra] : [];
    const tool = ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg')}`, ...(cache ? CACHE_ARGS : [])];
    const server = await spawnServer(spec, { prefix: ['valgrind', ...tool], runtimeArgs: seeds, readyMs: 180_000 });
    const { url, child, io: out } = server;
    try {
      await server.ready();
      // The warm-up in two loads, each on connections of its own, so the counted requests come on
      // a third set: a server's first connections change the maps (hidden classes) of Node's socket
      // and stream objects, and the next connection deoptimizes the code built for them ("wrong
      // map": 15 deoptimizations during a first load of 20 000 requests, 23 when a second connection
      // starts, 1 at a third, none after, `node --trace-deopt` on the create workload). Counted on
      // the second connection, half the window ran Node's HTTP code unoptimized again, a share that
      // differed from server to server.
      const second = Math.max(1, Math.min(2_000, Math.floor(warmup / 4)));
      await load(url, warmup - second, spec, connections);
      await load(url, second, spec, connections);
      control('-z', child.pid!);
      const answered = await load(url, requests, spec, connections);
      control('-d', child.pid!);
      // The dump of part 1 is one file per thread: cg.1-01 is the main (JavaScript) thread.
      const files = readdirSync(dir)
        .filter((f) => /^cg\.1-\d+$/.test(f))
        .sort();
      if (!files.includes('cg.1-01')) throw new Error(`${spec.name}: no callgrind dump (stderr: ${out.stderr().slice(-500)})`);
      const keep = process.env.INSTR_KEEP;
      if (keep !== undefined && keep !== '') cpSync(join(dir, 'cg.1-01'), join(keep, `${spec.name}.callgrind`));
      const main = totals(join(dir, 'cg.1-01'));
      const all = files.reduce((sum, f) => sum + (totals(join(dir, f)).get('Ir') ?? 0), 0);
      return { main: (main.get('Ir') ?? 0) / answered, all: all / answered, misses: missesOf(main, answered) };
    } finally {
      await stop(child, 10_000);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median main-thread misses per request, as three more table cells. */
function missColumns(counts: Count[]): string {
  const of = (pick: (m: Misses) => number): string => median(counts.map((c) => pick(c.misses!))).toFixed(1);
  return ` ${of((m) => m.i1)} | ${of((m) => m.d1)} | ${of((m) => m.ll)} |`;
}

function checkValgrind(): void {
  for (const tool of ['valgrind', 'callgrind_control']) {
    const r = spawnSync(tool, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    if (r.status !== 0) throw new Error(`${tool} not found: install valgrind (Debian: apt-get install valgrind)`);
  }
}

async function main(): Promise<void> {
  checkValgrind();
  const servers = selectServers(process.env, PKG_DIR);
  const warmup = intEnv('INSTR_WARMUP', 20_000, 1_000, 1_000_000);
  const requests = intEnv('INSTR_REQUESTS', 10_000, 1_000, 1_000_000);
  const rounds = intEnv('INSTR_ROUNDS', 2, 1, 20);
  const cache = process.env.INSTR_CACHE === '1';
  // 10 connections (the default): a server answers several requests per event-loop turn, as
  // many as the load generator keeps in flight, so the count includes that batching (bare's
  // validated create: 94 630 with 10, 111 776 with 1). 1 connection: one request per turn,
  // independent of how fast the generator runs on a busy machine.
  const connections = intEnv('INSTR_CONNECTIONS', 10, 1, 100);
  process.stderr.write(
    `instructions: ${servers.length} servers x ${rounds} rounds (${warmup} warm-up + ${requests} counted requests, ${connections} connections), node ${process.version}\n`,
  );
  const counts = new Map<string, Count[]>(servers.map((s) => [s.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < servers.length; i++) {
      const spec = servers[(i + r) % servers.length]!;
      const c = await countOne(spec, warmup, requests, cache, connections);
      counts.get(spec.name)!.push(c);
      const m =
        c.misses === undefined
          ? ''
          : `; misses/request I1 ${c.misses.i1.toFixed(0)}, D1 ${c.misses.d1.toFixed(0)}, LL ${c.misses.ll.toFixed(1)}`;
      process.stderr.write(
        `round ${r + 1}/${rounds} ${spec.name}: ${Math.round(c.main)} instructions/request (all threads ${Math.round(c.all)})${m}\n`,
      );
    }
  }
  const bare = counts.get('bare');
  const bareMain = bare === undefined ? undefined : median(bare.map((c) => c.main));
  const rows = servers.map((s) => {
    const main = counts.get(s.name)!.map((c) => c.main);
    const m = median(main);
    const range = `${Math.round(Math.min(...main))}-${Math.round(Math.max(...main))}`;
    const ratio = bareMain === undefined ? '-' : (m / bareMain).toFixed(3);
    const all = Math.round(median(counts.get(s.name)!.map((c) => c.all)));
    const misses = cache ? missColumns(counts.get(s.name)!) : '';
    return `| ${s.name} | ${Math.round(m)} | ${range} | ${ratio} | ${all} |${misses}`;
  });
  const missHead = cache ? ' I1 misses | D1 misses | LL misses |' : '';
  process.stdout.write(
    `| server | instructions / request (main thread, median) | range | vs bare | all threads |${missHead}\n|---|---:|---:|---:|---:|${cache ? '---:|---:|---:|' : ''}\n`,
  );
  process.stdout.write(`${rows.join('\n')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

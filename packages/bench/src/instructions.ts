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
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonResult } from './load-worker.js';
import { median } from './load.js';
import { capture, freePort, start, stop, waitUntil } from './proc.js';
import { answers, commandOf, intEnv, PKG_DIR } from './runner-util.js';
import { selectServers, type ServerSpec } from './servers.js';

type Autocannon = (
  options: { url: string; connections: number; amount: number; headers?: Record<string, string> },
  done: (err: Error | null, result: AutocannonResult) => void,
) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One server's counts in one round: instructions per request, main thread and all threads. */
interface Count {
  main: number;
  all: number;
}

/** Sends `amount` requests over 10 connections; every one must answer 2xx. */
function load(url: string, amount: number, headers: Record<string, string> | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, amount, headers }, (err, r) => {
      if (err !== null) reject(err);
      else if (r.errors !== 0 || r.timeouts !== 0 || r.non2xx !== 0 || r.requests.total < amount) {
        reject(new Error(`${url}: ${r.requests.total} requests, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`));
      } else resolve();
    });
  });
}

/** `callgrind_control <flag> <pid>`, which asks the running tool to zero (-z) or dump (-d) its counters. */
function control(flag: '-z' | '-d', pid: number): void {
  const r = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`callgrind_control ${flag} ${pid} failed: ${r.stderr || r.error?.message}`);
}

/** The `totals:` line of a callgrind output file. */
function totals(file: string): number {
  const m = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (m === null) throw new Error(`${file}: no totals line`);
  return Number(m[1]);
}

async function countOne(spec: ServerSpec, warmup: number, requests: number): Promise<Count> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-instr-'));
  try {
    const cmd = commandOf(spec);
    const seeds = spec.cmd === 'node' ? ['--hash-seed=1', '--random-seed=1'] : [];
    const args = ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg')}`, cmd, ...seeds, ...spec.args];
    const child: ChildProcess = start([], 'valgrind', args, { ...process.env, ...spec.env, PORT: String(port) }, PKG_DIR);
    const out = capture(child);
    const url = spec.url.replaceAll('{port}', String(port));
    try {
      const pattern = spec.ready === 'poll' ? undefined : new RegExp(spec.ready ?? '^ready\\b', 'm');
      const ready = pattern === undefined ? () => answers(url, spec.headers) : async () => pattern.test(out.stdout());
      await waitUntil(child, ready, 180_000, spec.name);
      await load(url, warmup, spec.headers);
      control('-z', child.pid!);
      await load(url, requests, spec.headers);
      control('-d', child.pid!);
      // The dump of part 1 is one file per thread: cg.1-01 is the main (JavaScript) thread.
      const files = readdirSync(dir)
        .filter((f) => /^cg\.1-\d+$/.test(f))
        .sort();
      if (!files.includes('cg.1-01')) throw new Error(`${spec.name}: no callgrind dump (stderr: ${out.stderr().slice(-500)})`);
      const main = totals(join(dir, 'cg.1-01'));
      const all = files.reduce((sum, f) => sum + totals(join(dir, f)), 0);
      return { main: main / requests, all: all / requests };
    } finally {
      await stop(child, 10_000);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  process.stderr.write(
    `instructions: ${servers.length} servers x ${rounds} rounds (${warmup} warm-up + ${requests} counted requests), node ${process.version}\n`,
  );
  const counts = new Map<string, Count[]>(servers.map((s) => [s.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < servers.length; i++) {
      const spec = servers[(i + r) % servers.length]!;
      const c = await countOne(spec, warmup, requests);
      counts.get(spec.name)!.push(c);
      process.stderr.write(
        `round ${r + 1}/${rounds} ${spec.name}: ${Math.round(c.main)} instructions/request (all threads ${Math.round(c.all)})\n`,
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
    return `| ${s.name} | ${Math.round(m)} | ${range} | ${ratio} | ${Math.round(median(counts.get(s.name)!.map((c) => c.all)))} |`;
  });
  process.stdout.write(
    '| server | instructions / request (main thread, median) | range | vs bare | all threads |\n|---|---:|---:|---:|---:|\n',
  );
  process.stdout.write(`${rows.join('\n')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});

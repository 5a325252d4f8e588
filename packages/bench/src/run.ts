/**
 * The benchmark runner (`pnpm --filter @jaxrs-node/bench run bench`). Starts every server pinned
 * to the server core, checks one answer from each (and, for filter variants, one refused request)
 * and warms each up (launch.ts). Then alternating rounds: every server runs once per round for a
 * short run, the order rotating, with a `bare` run before and after each (paired ratios compare a
 * run with its two neighbours). Then head-to-head rounds: each server and `bare` loaded at the
 * same time on the same core (measure.ts). Prints markdown tables (tables.ts) and writes
 * results/latest.json. Before each run it waits for the machine to be quiet and redoes runs other
 * programs disturbed, or head-to-head runs where the load generator saturated.
 * Exits 1 when a server does not start or exits, a sanity check fails, or any answer is not 2xx.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { config } from './config.js';
import { launch, type Running } from './launch.js';
import { LoadGenerator, type LoadOptions } from './load.js';
import { duel, measureQuietly, type Duel, type Sample } from './measure.js';
import { pinning, stop } from './proc.js';
import { PKG_DIR } from './runner-util.js';
import { selectServers } from './servers.js';
import { duelTable, fixed, summarise, table } from './tables.js';

async function main(): Promise<void> {
  const servers = selectServers(process.env, PKG_DIR);
  const serverPin = pinning(config.serverCpu);
  const loadPin = pinning(config.loadCpu);
  const loadOpts: LoadOptions = { pin: loadPin, connections: config.connections, duration: config.duration, cwd: PKG_DIR };
  const samples = new Map<string, Sample[]>(servers.map((s) => [s.name, []]));
  const started = new Date();
  process.stderr.write(
    `bench: ${servers.length} servers x ${config.rounds} rounds x (${config.warmup} s warm-up + ${config.duration} s), ${config.connections} connections, node ${process.version}\n`,
  );
  // Every server is started, checked and warmed once, then the measured runs interleave: short
  // runs of each server in turn, many rounds. The host's speed drifts over minutes, so runs
  // seconds apart compare fairly where runs minutes apart do not (see pairedRatio in tables.ts).
  const running: Running[] = [];
  const duels = new Map<string, Duel[]>();
  const load = new LoadGenerator(loadOpts);
  try {
    for (const spec of servers) running.push(await launch(spec, serverPin, load));
    const bare = running.find((r) => r.spec.name === 'bare');
    const others = running.filter((r) => r !== bare);
    const run = async (r: Running, round: number): Promise<Sample> => {
      const s = await measureQuietly(r, round, load);
      samples.get(r.spec.name)!.push(s);
      const cpu =
        s.cpuUsPerReq === null
          ? ''
          : `, ${s.cpuUsPerReq.toFixed(1)} us CPU/req, noise ${fixed(s.noise)} cores, server ${fixed(s.serverLoad)} / autocannon ${fixed(s.loadCpu)} cores busy`;
      process.stderr.write(`round ${round}/${config.rounds} ${r.spec.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99} ms${cpu}\n`);
      return s;
    };
    if (bare === undefined) {
      for (let round = 0; round < config.rounds; round++) {
        for (let k = 0; k < running.length; k++) await run(running[(k + round) % running.length]!, round + 1);
      }
    } else {
      // bare, X1, bare, X2, bare, ...: every run of another server sits between two bare runs.
      let previous = await run(bare, 1);
      for (let round = 0; round < config.rounds; round++) {
        for (let k = 0; k < others.length; k++) {
          const s = await run(others[(k + round) % others.length]!, round + 1);
          const next = await run(bare, round + 1);
          s.between = [previous, next];
          previous = next;
        }
      }
    }
    for (let round = 0; bare !== undefined && round < config.togetherRounds; round++) {
      for (let k = 0; k < others.length; k++) {
        const r = others[(k + round) % others.length]!;
        const d = await duel(bare, r, round + 1, load);
        if (!duels.has(r.spec.name)) duels.set(r.spec.name, []);
        duels.get(r.spec.name)!.push(d);
        process.stderr.write(
          `head-to-head ${round + 1}/${config.togetherRounds} ${r.spec.name} ${Math.round(d.rps)} vs bare ${Math.round(d.bareRps)} req/s: ${(d.rps / d.bareRps).toFixed(2)}, noise ${fixed(d.noise)} / autocannon ${fixed(d.loadCpu)} cores busy\n`,
        );
      }
    }
  } finally {
    await Promise.all([...running.map((r) => stop(r.child)), load.close()]);
  }
  const rows = summarise(servers, samples);
  const out = table(rows);
  process.stdout.write(`\n${out}\n\n`);
  const duelOut = duels.size === 0 ? undefined : duelTable(duels);
  if (duelOut !== undefined) process.stdout.write(`${duelOut}\n\n`);
  const dir = join(PKG_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const result = {
    date: started.toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpuCount: cpus().length,
    config,
    pinned: { server: serverPin.length > 0 ? config.serverCpu : null, load: loadPin.length > 0 ? config.loadCpu : null },
    servers: rows,
    table: out,
    headToHead: Object.fromEntries(duels),
    headToHeadTable: duelOut,
  };
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`wrote ${join(dir, 'latest.json')}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);

/**
 * What the runner prints and saves: per-server medians and ratios of the alternating rounds
 * (`summarise`, `table`) and the head-to-head runs' ratios (`duelTable`), as markdown tables.
 */
import { median } from './load.js';
import { exceeds, generatorBound, noisy, type Duel, type Limit, type Sample } from './measure.js';
import type { ServerSpec } from './servers.js';

/** Per-server medians and ratios, in the order the servers were listed. */
export function summarise(servers: readonly ServerSpec[], samples: Map<string, Sample[]>) {
  const rows = servers.map((s) => {
    const list = samples.get(s.name) ?? [];
    return {
      name: s.name,
      rps: median(list.map((x) => x.rps)),
      p50: median(list.map((x) => x.p50)),
      p99: median(list.map((x) => x.p99)),
      cpuUsPerReq: medianOf(list.map((x) => x.cpuUsPerReq)),
      /** Median cores' worth of CPU the load generator used in this server's runs. */
      loadCpu: medianOf(list.map((x) => x.loadCpu)),
      noisyRounds: list.filter((x) => exceeds(noisy, x)).length,
      rounds: list,
    };
  });
  const base = (name: string): number | undefined => rows.find((r) => r.name === name)?.rps;
  const bare = base('bare');
  const fastify = base('fastify');
  // Against the neighbouring bare runs (pairedRatio); bare against itself is 1 by definition.
  const paired = (r: (typeof rows)[number], value: (s: Sample) => number | null): number | null =>
    bare === undefined ? null : r.name === 'bare' ? 1 : pairedRatio(r.rounds, value);
  return rows.map((r) => ({
    ...r,
    vsBare: bare === undefined ? null : r.rps / bare,
    vsFastify: fastify === undefined ? null : r.rps / fastify,
    pairedVsBare: paired(r, (x) => x.rps),
    pairedCpuVsBare: paired(r, (x) => (x.cpuUsPerReq === null ? null : 1 / x.cpuUsPerReq)),
    // For the JSON file: the neighbouring bare runs as their req/s, not as nested samples.
    rounds: r.rounds.map(({ between, ...rest }) => ({ ...rest, bareRpsBeforeAfter: between?.map((b) => b.rps) })),
  }));
}

/**
 * Median over runs of `value(run) / value(bare)`, where bare's value is the mean of the `bare`
 * runs just before and just after the run (the runner puts one between every two runs). The
 * host's speed drifts by 10-30% within minutes on this VM; a ratio of runs two seconds apart
 * cancels much of that drift, where the ratio of two medians taken from different minutes does not.
 */
function pairedRatio(server: readonly Sample[], value: (s: Sample) => number | null): number | null {
  const ratios: number[] = [];
  for (const s of server) {
    if (s.between === undefined) continue;
    const v = value(s);
    const a = value(s.between[0]);
    const b = value(s.between[1]);
    if (v !== null && a !== null && b !== null && a + b > 0) ratios.push(v / ((a + b) / 2));
  }
  return ratios.length === 0 ? null : median(ratios);
}

type Row = ReturnType<typeof summarise>[number];

/** The alternating rounds as a markdown table, one row per server. */
export function table(rows: readonly Row[]): string {
  const lines = [
    '| server | median req/s | vs bare node:http | vs bare, paired | vs bare by CPU, paired | vs fastify | p99 latency | server CPU / req | load CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const cpu = r.cpuUsPerReq === null ? '-' : `${r.cpuUsPerReq.toFixed(1)} us`;
    // autocannon records whole milliseconds: 0 means under 1 ms.
    const p99 = r.p99 < 1 ? '<1 ms' : `${r.p99} ms`;
    lines.push(
      `| ${r.name}${flags(r.rounds, [noisy])} | ${Math.round(r.rps)} | ${fixed(r.vsBare)} | ${fixed(r.pairedVsBare)} | ${fixed(r.pairedCpuVsBare)} | ${fixed(r.vsFastify)} | ${p99} | ${cpu} | ${fixed(r.loadCpu)} |`,
    );
  }
  return lines.join('\n');
}

/** The head-to-head runs as a markdown table, one row per server (each against `bare`). */
export function duelTable(duels: Map<string, Duel[]>): string {
  const lines = [
    '| server (head-to-head with bare, same core, same time) | median req/s | bare req/s in the same runs | vs bare, median of runs | range of runs | CPU / req (bare) | load CPU |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, list] of duels) {
    const ratios = list.map((d) => d.rps / d.bareRps);
    const cpu = list.filter((d) => d.cpuUsPerReq !== null && d.bareCpuUsPerReq !== null);
    const cpuText =
      cpu.length === 0
        ? '-'
        : `${median(cpu.map((d) => d.cpuUsPerReq!)).toFixed(1)} us (${median(cpu.map((d) => d.bareCpuUsPerReq!)).toFixed(1)} us)`;
    lines.push(
      `| ${name}${flags(list, [noisy, generatorBound])} | ${Math.round(median(list.map((d) => d.rps)))} | ${Math.round(median(list.map((d) => d.bareRps)))} | ${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ${cpuText} | ${fixed(medianOf(list.map((d) => d.loadCpu)))} |`,
    );
  }
  return lines.join('\n');
}

/** ` (n noisy) (m generator-bound)`: how many kept runs broke each limit (every attempt did). */
function flags<T>(runs: readonly T[], limits: readonly Limit<T>[]): string {
  return limits
    .map((l) => {
      const n = runs.filter((run) => exceeds(l, run)).length;
      return n === 0 ? '' : ` (${n} ${l.flag})`;
    })
    .join('');
}

/** Median of the measured values; null when none was measured (no /proc). */
function medianOf(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : median(known);
}

/** Two decimals, or `-` for a value not measured (no /proc) or not computable (no `bare`). */
export function fixed(x: number | null): string {
  return x === null ? '-' : x.toFixed(2);
}

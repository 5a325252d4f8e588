/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. `BENCH_PROFILE=1`): the hottest
 * functions by self time, and by inclusive time those from the pipeline's own sources, so the
 * cost our code adds on top of node:http is visible without a GUI.
 * Usage: node dist/profile-summary.js <file.cpuprofile> [top=25] [filter=/pipeline/dist/]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self and inclusive microseconds per function (`name url:line`). */
export interface FunctionTime {
  key: string;
  selfUs: number;
  totalUs: number;
}

/** Self and inclusive time per function; inclusive time counts a recursive function once per sample. */
export function summarise(p: Profile): { total: number; functions: FunctionTime[] } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode): string => {
    const f = n.callFrame;
    const file = f.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
    return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let sum = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    sum += dt;
    let node = byId.get(p.samples[i]!);
    if (node === undefined) continue;
    const k = keyOf(node);
    self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      node = byId.get(id)!;
      const key = keyOf(node);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + dt);
    }
  }
  const functions = [...total.entries()].map(([key, t]) => ({ key, selfUs: self.get(key) ?? 0, totalUs: t }));
  return { total: sum, functions };
}

function main(): void {
  const [file, topArg, filterArg] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: profile-summary <file.cpuprofile> [top] [path filter]\n');
    process.exit(2);
  }
  const top = Number(topArg ?? 25);
  const filter = filterArg ?? '/pipeline/dist/';
  const { total, functions } = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const pct = (us: number): string => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const idle = functions.find((f) => f.key.startsWith('(idle)'))?.selfUs ?? 0;
  let out = `total ${(total / 1e6).toFixed(2)} s sampled, idle ${pct(idle)}\n\nby self time:\n`;
  for (const f of [...functions].sort((a, b) => b.selfUs - a.selfUs).slice(0, top)) {
    out += `${pct(f.selfUs)} self ${pct(f.totalUs)} total  ${f.key}\n`;
  }
  out += `\nby inclusive time, ${filter} only:\n`;
  for (const f of functions
    .filter((x) => x.key.includes(filter))
    .sort((a, b) => b.totalUs - a.totalUs)
    .slice(0, top)) {
    out += `${pct(f.totalUs)} total ${pct(f.selfUs)} self  ${f.key}\n`;
  }
  // A closed pipe (`| head`) is not an error worth a stack trace.
  process.stdout.on('error', () => process.exit(0));
  process.stdout.write(out);
}

main();

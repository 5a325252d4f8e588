/** Talking to a running callgrind (valgrind) and reading its dumps: shared by the instruction counters. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** `callgrind_control <flag> <pid>`, which asks the running tool to zero (-z) or dump (-d) its counters. */
export function control(flag: '-z' | '-d', pid: number): void {
  const r = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`callgrind_control ${flag} ${pid} failed: ${r.stderr || r.error?.message}`);
}

/** The `totals:` line of a callgrind output file, by event name (`Ir`, and `I1mr`, `D1mr`... with the cache simulation). */
export function totals(file: string): Map<string, number> {
  const text = readFileSync(file, 'utf8');
  const events = /^events:\s+(.+)$/m.exec(text);
  const values = /^totals:\s+(.+)$/m.exec(text);
  if (events === null || values === null) throw new Error(`${file}: no events/totals line`);
  const names = events[1]!.trim().split(/\s+/);
  const numbers = values[1]!.trim().split(/\s+/).map(Number);
  return new Map(names.map((n, i) => [n, numbers[i] ?? 0]));
}

/**
 * The inclusive count (`Ir`) of the function of a callgrind dump whose name starts with `name`, by
 * `callgrind_annotate --inclusive=yes` (0 when it never ran): e.g. `v8::internal::Heap::CollectGarbage(`,
 * every garbage collection the thread ran, to tell a difference in GC from one in the code measured.
 */
export function inclusive(file: string, name: string): number {
  const r = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`callgrind_annotate ${file} failed: ${r.stderr || r.error?.message}`);
  let best = 0;
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*?:(.*)$/.exec(line);
    if (m !== null && m[2]!.startsWith(name)) best = Math.max(best, Number(m[1]!.replaceAll(',', '')));
  }
  return best;
}

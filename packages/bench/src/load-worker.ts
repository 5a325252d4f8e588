/**
 * Runs in its own process, pinned to the load core: autocannon's programmatic API against one
 * URL, then one JSON line on stdout with the result and the CPU this process used, so the runner
 * can tell how much of the machine was busy with something else (another benchmark, a build).
 * Usage: node dist/load-worker.js <url> <connections> <seconds> [headers as JSON]
 */
import { createRequire } from 'node:module';

/** The subset of autocannon's result the runner reads (same fields as `autocannon --json`). */
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
}

type Autocannon = (
  options: { url: string; connections: number; duration: number; headers?: Record<string, string> },
  done: (err: Error | null, result: AutocannonResult) => void,
) => unknown;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const [url, connections, seconds, headersJson] = process.argv.slice(2);
if (url === undefined || connections === undefined || seconds === undefined) {
  process.stderr.write('usage: load-worker <url> <connections> <seconds>\n');
  process.exit(2);
}
const startCpu = process.cpuUsage();
const headers = headersJson === undefined ? undefined : (JSON.parse(headersJson) as Record<string, string>);
autocannon({ url, connections: Number(connections), duration: Number(seconds), headers }, (err, result) => {
  if (err !== null) {
    process.stderr.write(`${err.stack ?? String(err)}\n`);
    process.exit(1);
  }
  const cpu = process.cpuUsage(startCpu);
  const line = JSON.stringify({
    duration: result.duration,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    requests: { average: result.requests.average, total: result.requests.total },
    latency: { p50: result.latency.p50, p99: result.latency.p99 },
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  });
  // Exit only once the line is flushed: autocannon may leave timers behind.
  process.stdout.write(`${line}\n`, () => process.exit(0));
});

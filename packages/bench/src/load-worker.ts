/**
 * The load generator process, pinned to the load core by the runner. It stays up for the whole
 * benchmark: each JSON line on stdin is one run (`{ url, connections, duration, headers? }`,
 * duration in seconds, or `targets` to load several servers at once), answered by one JSON line
 * on stdout with autocannon's result(s); the runner reads this process's CPU from `/proc` around
 * each run. One long-lived process keeps autocannon warm and lets runs follow each other within
 * milliseconds, which is what makes back-to-back runs comparable on a drifting host.
 * It exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { runAutocannon, unexpectedAnswers, type AutocannonResult } from './autocannon.js';
import type { LoadRequest } from './servers.js';

/**
 * One run, as the runner sends it: one URL, or several loaded at the same time (`targets`). The
 * request's method, body and headers, and the status it must answer (`LoadRequest`), are per target.
 */
export interface LoadCommand extends LoadRequest {
  url: string;
  connections: number;
  duration: number;
  /** Load these together, each with `connections` connections, for the same `duration`. */
  targets?: ({ url: string } & LoadRequest)[];
}

/** autocannon's result, `non2xx` counting the answers that were not the expected status. */
function summary(result: AutocannonResult, status: number | undefined): AutocannonResult {
  return {
    duration: result.duration,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: unexpectedAnswers(result, status),
    requests: { average: result.requests.average, total: result.requests.total },
    latency: { p50: result.latency.p50, p99: result.latency.p99 },
  };
}

async function runOnce(cmd: LoadCommand): Promise<string> {
  const targets = cmd.targets ?? [
    { url: cmd.url, headers: cmd.headers, method: cmd.method, body: cmd.body, idReplacement: cmd.idReplacement, status: cmd.status },
  ];
  const results = await Promise.all(
    targets.map((t) =>
      runAutocannon({
        url: t.url,
        connections: cmd.connections,
        duration: cmd.duration,
        headers: t.headers,
        method: t.method,
        body: t.body,
        idReplacement: t.idReplacement,
      }),
    ),
  );
  const out = results.map((r, i) => summary(r, targets[i]!.status));
  return JSON.stringify(cmd.targets === undefined ? out[0] : out);
}

// Runs are sequential: the next line is read only after the previous answer is written.
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
for (;;) {
  const next = await lines.next();
  if (next.done === true) break;
  if (next.value.trim() === '') continue;
  try {
    const line = await runOnce(JSON.parse(next.value) as LoadCommand);
    process.stdout.write(`${line}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ error: (e as Error).stack ?? String(e) })}\n`);
  }
}
// autocannon may leave timers behind: exit once stdout is flushed.
process.stdout.write('', () => process.exit(0));

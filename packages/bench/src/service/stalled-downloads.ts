// Not a test: what 1 000 clients that open `GET /api/large-data?count=1000000` and never read it
// cost the reference server, and what a plain `GET /api/users/1` then takes.
// Each stalled client uses its own loopback address (127.0.x.y: Linux routes all of 127/8 to lo),
// so the per-client bound (LARGE_DATA_PER_CLIENT) does not decide alone: the total bound (64)
// and the pipeline's sendTimeout do. Prints the latency of 200 sequential GETs before and during
// the stall, the server's RSS, and how the 1 000 downloads were answered.
// Usage: pnpm --filter @jaxrs-node/bench run stalled-downloads
//   STALLED=1000 PROBES=200
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_DIR, SERVICE_MAIN } from './service-paths.js';

const STALLED = Number(process.env.STALLED ?? 1000);
const PROBES = Number(process.env.PROBES ?? 200);

const rssMiB = (pid: number | undefined) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;

async function probe(port: number) {
  const times: number[] = [];
  for (let i = 0; i < PROBES; i++) {
    const t = performance.now();
    const r = await fetch(`http://127.0.0.1:${port}/api/users/1`);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`probe got ${r.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50).toFixed(2), p99: pct(times, 99).toFixed(2), max: pct(times, 100).toFixed(2) };
}

/** Opens a download from 127.0.x.y, reads its status line, then never reads again. */
async function stall(port: number, i: number, outcomes: Record<string, number>, sockets: Socket[]) {
  const localAddress = `127.0.${2 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  sockets.push(socket);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write('GET /api/large-data?count=1000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.pause();
  const status = first.toString('latin1').split(' ')[1] ?? '?';
  outcomes[status] = (outcomes[status] ?? 0) + 1;
}

const dataDir = mkdtempSync(join(tmpdir(), 'stalled-bench-'));
const child = spawn(process.execPath, [SERVICE_MAIN], {
  cwd: SERVICE_DIR,
  env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_REQUESTS: 'false', RATE_LIMIT_PER_MINUTE: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const port = await new Promise<number>((resolve) =>
  child.stdout.on('data', (d: Buffer) => {
    out += d;
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  }),
);
try {
  await probe(port); // warm-up
  const before = { rss: rssMiB(child.pid).toFixed(1), ...(await probe(port)) };
  const outcomes: Record<string, number> = {};
  const sockets: Socket[] = [];
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: STALLED }, (_, i) => stall(port, i, outcomes, sockets)));
  const openMs = (performance.now() - t0).toFixed(0);
  const during = { rss: rssMiB(child.pid).toFixed(1), ...(await probe(port)) };
  console.log(`node ${process.version}; ${STALLED} stalled downloads opened in ${openMs} ms; answers: ${JSON.stringify(outcomes)}`);
  console.log('| phase | server RSS MiB | GET /api/users/1 p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  console.log(`| before | ${before.rss} | ${before.p50} | ${before.p99} | ${before.max} |`);
  console.log(`| ${STALLED} stalled | ${during.rss} | ${during.p50} | ${during.p99} | ${during.max} |`);
  void cpuBefore;
  for (const s of sockets) s.destroy();
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
  rmSync(dataDir, { recursive: true, force: true });
}

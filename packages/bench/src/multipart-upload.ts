/**
 * Multipart upload (`pnpm --filter @jaxrs-node/bench run multipart-upload`): one generated file of
 * `MP_BYTES` (default 1 GiB) uploaded as multipart/form-data, streamed by the client (never held in
 * memory), to two servers started side by side, each pinned to core 0 when `taskset` works:
 *
 * - `pipeline`: an Application with `MultipartFeature`, a resource that takes the `MultipartBody`
 *   and pipes the file part into a file on disk;
 * - `busboy`: busboy used directly on bare `node:http`, piping its file stream into a file.
 *
 * Both write under `MP_DIR` (default the OS temp dir) and delete the file after answering. The
 * runner alternates the servers for `MP_ROUNDS` rounds (default 3, after one warm-up upload of 64
 * MiB each) and reports each server's throughput (MB/s, median of the rounds), the ratio
 * pipeline / busboy (target >= 0.8), the server's CPU time per GiB (steadier than throughput on a
 * busy host, where the disk and other programs move the MB/s from round to round), and its RSS
 * growth during an upload: the highest RSS it sampled every 20 ms while the upload ran, minus its
 * RSS when the upload began (target < 50 MB). Results go to stdout and `results/multipart-upload.json`.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import busboy from 'busboy';
import { Application, Path, POST, Produces } from '@jaxrs-node/pipeline';
import { MultipartBody, MultipartFeature } from '@jaxrs-node/pipeline/multipart';
import { capture, cpuSeconds, pinning, start, stop, waitUntil } from './proc.js';
import { intEnv } from './runner-util.js';

const SELF = fileURLToPath(import.meta.url);
const PKG_DIR = join(dirname(SELF), '..');
const BYTES = intEnv('MP_BYTES', 1024 * 1024 * 1024, 1024 * 1024, 16 * 1024 * 1024 * 1024);
const ROUNDS = intEnv('MP_ROUNDS', 3, 1, 100);
const WARMUP_BYTES = Math.min(BYTES, 64 * 1024 * 1024);
const DIR = process.env.MP_DIR ?? tmpdir();
const BOUNDARY = '----bench-multipart-7MA4YWxkTrZu0gW';
const CHUNK = 64 * 1024;
const SAMPLE_MS = 20;
const MB = 1e6;

type ServerKind = 'pipeline' | 'busboy';

// ---- the servers ------------------------------------------------------------------------------

/** RSS samples: the highest since the last `/rss` reset. */
function rssMonitor(): { handle(res: ServerResponse): void } {
  let peak = process.memoryUsage.rss();
  setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS).unref();
  return {
    handle(res) {
      const rss = process.memoryUsage.rss();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rss, peak: Math.max(peak, rss) }));
      peak = rss;
    },
  };
}

const target = (): string => join(DIR, `bench-upload-${randomUUID()}`);

async function pipelineServer(): Promise<number> {
  const monitor = rssMonitor();
  @Path('/upload')
  class Upload {
    @POST()
    @Produces('application/json')
    async upload(body: MultipartBody): Promise<unknown> {
      let size = 0;
      for await (const part of body) {
        if (!part.isFile) continue;
        const path = target();
        try {
          size += await part.pipeTo(createWriteStream(path));
        } finally {
          await rm(path, { force: true });
        }
      }
      return { size };
    }
  }
  const limit = 2 * BYTES;
  const app = new Application({
    resources: [Upload],
    providers: [new MultipartFeature({ limits: { partSize: limit, totalSize: limit } })],
  });
  const handler = app.handler;
  const server = createServer((req, res) => (req.url === '/rss' ? monitor.handle(res) : handler(req, res)));
  return listen(server);
}

async function busboyServer(): Promise<number> {
  const monitor = rssMonitor();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/rss') return monitor.handle(res);
    const parser = busboy({ headers: req.headers, limits: { fileSize: 2 * BYTES } });
    const writes: Array<Promise<number>> = [];
    parser.on('file', (_name, stream) => {
      const path = target();
      let size = 0;
      stream.on('data', (c: Buffer) => (size += c.length));
      writes.push(
        pipeline(stream, createWriteStream(path)).then(
          () => rm(path, { force: true }).then(() => size),
          async (e: unknown) => {
            await rm(path, { force: true });
            throw e;
          },
        ),
      );
    });
    parser.on('close', () => {
      void Promise.all(writes).then(
        (sizes) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ size: sizes.reduce((a, b) => a + b, 0) })),
        () => res.writeHead(500).end(),
      );
    });
    parser.on('error', () => res.writeHead(400, { connection: 'close' }).end());
    req.pipe(parser);
  });
  return listen(server);
}

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

// ---- the client -------------------------------------------------------------------------------

/** Uploads a generated file of `size` bytes; resolves with the seconds from first byte to answer. */
function upload(port: number, size: number): Promise<number> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    let left = size;
    for (; left >= CHUNK; left -= CHUNK) yield chunk;
    if (left > 0) yield chunk.subarray(0, left);
    yield tail;
  }
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/upload',
        agent: false,
        headers: {
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          const seconds = (performance.now() - began) / 1000;
          if (res.statusCode !== 200 || (JSON.parse(text) as { size: number }).size !== size) {
            reject(new Error(`upload answered ${res.statusCode}: ${text}`));
          } else resolve(seconds);
        });
      },
    );
    req.on('error', reject);
    pipeline(Readable.from(body()), req).catch(reject);
  });
}

async function rss(port: number): Promise<{ rss: number; peak: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/rss`);
  return (await res.json()) as { rss: number; peak: number };
}

// ---- the runner -------------------------------------------------------------------------------

interface Round {
  seconds: number;
  mbPerSecond: number;
  cpuSecondsPerGiB: number;
  rssGrowthMb: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function runner(): Promise<void> {
  const pin = pinning('0');
  const kinds: ServerKind[] = ['pipeline', 'busboy'];
  const servers = new Map<ServerKind, { port: number; pid: number | undefined; stop: () => Promise<void> }>();
  process.stderr.write(`multipart-upload: ${BYTES} bytes x ${ROUNDS} rounds per server, files under ${DIR}, node ${process.version}\n`);
  try {
    for (const kind of kinds) {
      const child = start(pin, process.execPath, [SELF, 'server', kind], process.env, PKG_DIR);
      const out = capture(child);
      await waitUntil(child, async () => /^ready \d+/m.test(out.stdout()), 15_000, `${kind} server`);
      const port = Number(/^ready (\d+)/m.exec(out.stdout())![1]);
      servers.set(kind, { port, pid: child.pid, stop: () => stop(child) });
    }
    for (const kind of kinds) await upload(servers.get(kind)!.port, WARMUP_BYTES);
    const rounds = new Map<ServerKind, Round[]>(kinds.map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
        const { port, pid } = servers.get(kind)!;
        const before = await rss(port);
        const cpuBefore = cpuSeconds(pid) ?? NaN;
        const seconds = await upload(port, BYTES);
        const cpu = (cpuSeconds(pid) ?? NaN) - cpuBefore;
        const after = await rss(port);
        const r = {
          seconds,
          mbPerSecond: BYTES / MB / seconds,
          cpuSecondsPerGiB: cpu / (BYTES / 2 ** 30),
          rssGrowthMb: (after.peak - before.rss) / MB,
        };
        rounds.get(kind)!.push(r);
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${kind}: ${r.mbPerSecond.toFixed(0)} MB/s, ${r.cpuSecondsPerGiB.toFixed(2)} CPU s/GiB, RSS growth ${r.rssGrowthMb.toFixed(1)} MB\n`,
        );
      }
    }
    const summary = kinds.map((kind) => {
      const rs = rounds.get(kind)!;
      return {
        server: kind,
        medianMbPerSecond: median(rs.map((r) => r.mbPerSecond)),
        medianCpuSecondsPerGiB: median(rs.map((r) => r.cpuSecondsPerGiB)),
        maxRssGrowthMb: Math.max(...rs.map((r) => r.rssGrowthMb)),
      };
    });
    const ratio = summary[0]!.medianMbPerSecond / summary[1]!.medianMbPerSecond;
    const lines = [
      '| server | median MB/s | median server CPU s/GiB | max RSS growth during an upload (MB) |',
      '|---|---:|---:|---:|',
      ...summary.map(
        (s) =>
          `| ${s.server} | ${s.medianMbPerSecond.toFixed(0)} | ${s.medianCpuSecondsPerGiB.toFixed(2)} | ${s.maxRssGrowthMb.toFixed(1)} |`,
      ),
      '',
      `throughput ratio pipeline / busboy: ${ratio.toFixed(2)} (target >= 0.8); pipeline RSS growth ${summary[0]!.maxRssGrowthMb.toFixed(1)} MB (target < 50)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    mkdirSync(join(PKG_DIR, 'results'), { recursive: true });
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      bytes: BYTES,
      rounds: Object.fromEntries(rounds),
      summary,
      ratio,
    };
    writeFileSync(join(PKG_DIR, 'results', 'multipart-upload.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const s of servers.values()) await s.stop();
  }
}

if (process.argv[2] === 'server') {
  const port = process.argv[3] === 'pipeline' ? await pipelineServer() : await busboyServer();
  process.stdout.write(`ready ${port}\n`);
  process.once('SIGTERM', () => process.exit(0));
} else {
  await runner();
}

// Content codings on the service's JSON (issue 25): compressed size and CPU time per coding and
// level, for the two bodies an API client asks for most, a page of 20 users and the 1 000-user
// list, as the composed service answers them (createService over a MemoryRecordStore seeded through
// UserService.create, requests through app.inject with Accept-Encoding: identity).
// Each body is compressed with the synchronous zlib functions on this thread, so process.cpuUsage()
// counts exactly the encoder's CPU; the pipeline uses the asynchronous ones (the thread pool), which
// cost the same CPU. zstd rows only where this Node's node:zlib has zstd (22.15+, 23.8+).
// Usage: pnpm --filter @jaxrs-node/bench run compression   (about 20 s; QUICK=1: about 3 s)
import 'reflect-metadata';
import * as zlib from 'node:zlib';
import { seededService } from './seeded-service.js';

const quick = process.env.QUICK === '1';
const { service, close } = await seededService(1000, { tmpPrefix: 'compression-bench-' });

async function body(url: string): Promise<Buffer> {
  const r = await service.app.inject({ url, headers: { 'accept-encoding': 'identity' } });
  if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${r.text()}`);
  return r.body;
}
const bodies: Array<[string, Buffer]> = [
  ['page of 20 users (`GET /api/users?page=0&size=20`)', await body('/api/users?page=0&size=20')],
  ['1 000 users (`GET /api/users`)', await body('/api/users')],
];
await close();

type Compress = (input: Buffer) => Buffer;
const zstdSync: unknown = Reflect.get(zlib, 'zstdCompressSync');
const zstdLevel: unknown = Reflect.get(zlib.constants, 'ZSTD_c_compressionLevel');
const rows: Array<[coding: string, level: number, compress: Compress]> = [];
for (const level of [1, 6, 9]) rows.push(['gzip', level, (b) => zlib.gzipSync(b, { level })]);
for (const level of [1, 4, 5, 6, 11]) {
  const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: level, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT };
  rows.push(['br', level, (b) => zlib.brotliCompressSync(b, { params: { ...params, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } })]);
}
if (typeof zstdSync === 'function' && typeof zstdLevel === 'number') {
  for (const level of [1, 2, 3, 6, 19]) rows.push(['zstd', level, (b) => zstdSync(b, { params: { [zstdLevel]: level } }) as Buffer]);
}

/** CPU microseconds per call of `fn` on `input`, over about `budgetMs` of work after a warm-up. */
function cpuPerCall(fn: Compress, input: Buffer, budgetMs: number): number {
  for (let i = 0; i < 20; i++) fn(input);
  let calls = 0;
  const start = process.cpuUsage();
  const wallStart = performance.now();
  while (performance.now() - wallStart < budgetMs) {
    fn(input);
    calls++;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const lines = [`Node ${process.version}, ${rows.length} coding/level pairs, ${quick ? 'QUICK' : 'full'} run`, ''];
for (const [title, input] of bodies) {
  lines.push(`**${title}**: ${input.length} bytes of JSON`, '');
  lines.push('| coding | level | bytes | ratio | CPU µs per response |', '|---|---:|---:|---:|---:|');
  for (const [coding, level, fn] of rows) {
    const size = fn(input).length;
    const cpu = cpuPerCall(fn, input, quick ? 100 : 1000);
    lines.push(`| ${coding} | ${level} | ${size} | ${(input.length / size).toFixed(1)} | ${cpu.toFixed(cpu < 100 ? 1 : 0)} |`);
  }
  lines.push('');
}
process.stdout.write(`${lines.join('\n')}\n`);

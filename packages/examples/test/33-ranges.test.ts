import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, NOTES, sampleBytes, sampleFolder } from '../src/33-ranges/app.js';
import { listen, send, type Running } from './helpers/http.js';

const run = promisify(execFile);
const SAMPLE = sampleBytes();
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('33 range requests, over a real socket', () => {
  let server: Running;
  const folder = sampleFolder();
  beforeAll(async () => {
    server = await listen(createApp(folder));
  });
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('a whole file: 200, Accept-Ranges: bytes, a strong ETag', async () => {
    const r = await send(server.url, '/media/sample.bin');
    expect(r.status).toBe(200);
    expect(r.headers['accept-ranges']).toBe('bytes');
    expect(r.headers['content-length']).toBe(String(SAMPLE.length));
    expect(String(r.headers.etag)).toMatch(/^"[^"]+"$/);
    expect(r.body.equals(SAMPLE)).toBe(true);
  });

  it('one range: 206 with Content-Range and those bytes', async () => {
    const r = await send(server.url, '/media/sample.bin', { headers: { range: 'bytes=0-99' } });
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 0-99/${SAMPLE.length}`);
    expect(r.body.equals(SAMPLE.subarray(0, 100))).toBe(true);
  });

  it('two ranges: one multipart/byteranges answer holding both', async () => {
    const r = await send(server.url, '/media/sample.bin', { headers: { range: 'bytes=0-9,4096-4105' } });
    expect(r.status).toBe(206);
    expect(String(r.headers['content-type'])).toMatch(/^multipart\/byteranges; boundary=/);
    expect(r.text).toContain(`Content-Range: bytes 0-9/${SAMPLE.length}`);
    expect(r.text).toContain(`Content-Range: bytes 4096-4105/${SAMPLE.length}`);
    expect(r.body.includes(SAMPLE.subarray(4096, 4106))).toBe(true);
  });

  it('past the end: 416 with Content-Range: bytes */size and the error body', async () => {
    const r = await send(server.url, '/media/sample.bin', { headers: { range: 'bytes=2000000-' } });
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe(`bytes */${SAMPLE.length}`);
    expect(r.json()).toMatchObject({ status: 416, code: 'PIPE_RANGE_NOT_SATISFIABLE' });
  });

  it('an unknown file is 404; a name the template refuses never reaches the disk', async () => {
    expect((await send(server.url, '/media/missing.bin')).status).toBe(404);
    expect((await send(server.url, '/media/..%2Fsample.bin')).status).toBe(404);
  });

  it('bytes in memory: If-Range with the current tag gives the range, a stale tag the whole text', async () => {
    const whole = await send(server.url, '/media/notes');
    expect(whole.text).toBe(NOTES);
    const tag = String(whole.headers.etag);
    const part = await send(server.url, '/media/notes', { headers: { range: 'bytes=0-4', 'if-range': tag } });
    expect(part.status).toBe(206);
    expect(part.text).toBe(NOTES.slice(0, 5));
    const stale = await send(server.url, '/media/notes', { headers: { range: 'bytes=0-4', 'if-range': '"old"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(NOTES);
  });

  it('curl -C - completes a download started with -r: the same SHA-256 as the file', async () => {
    const out = join(folder, 'download.bin');
    await run('curl', ['-s', '--max-time', '10', '-r', '0-65535', '-o', out, `${server.url}/media/sample.bin`]);
    expect(readFileSync(out).length).toBe(65536);
    const { stdout } = await run('curl', [
      '-s',
      '--max-time',
      '10',
      '-C',
      '-',
      '-o',
      out,
      '-w',
      '%{http_code}',
      `${server.url}/media/sample.bin`,
    ]);
    expect(stdout).toBe('206');
    expect(sha256(readFileSync(out))).toBe(sha256(SAMPLE));
  });
});

/**
 * Range requests over a real socket with curl (RFC 9110 §14): `-r` for one and several ranges, and
 * `-C -` resuming a download of a few MiB that was cut off, checked by SHA-256 against the file.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Application, FileBody, GET, Path, Response } from '../../src/index.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'ranges-curl-'));
const FILE = join(dir, 'big.bin');
const CONTENT = randomBytes(3 * 1024 * 1024 + 123);
writeFileSync(FILE, CONTENT);
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

@Path('/files')
class Download {
  @GET('big') async big(): Promise<Response> {
    return Response.ok(await FileBody.fromPath(FILE), 'application/octet-stream')
      .header('content-disposition', 'attachment')
      .build();
  }
}

describe('range requests over curl', () => {
  const app = new Application({ resources: [Download], logger: () => undefined });
  let url = '';
  beforeAll(async () => {
    const { port } = await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${port}/files/big`;
  });
  afterAll(async () => {
    await app.close(2000);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs curl writing the body to `out`; returns the status and headers of the last response. */
  async function curl(out: string, ...args: string[]): Promise<{ status: number; headers: Record<string, string> }> {
    const { stdout } = await run('curl', ['-s', '--max-time', '20', '-o', out, '-D', '-', ...args, url], { encoding: 'utf8' });
    const blocks = stdout.trim().split(/\r?\n\r?\n/);
    const [statusLine = '', ...lines] = blocks[blocks.length - 1]!.split(/\r?\n/);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return { status: Number(statusLine.split(' ')[1]), headers };
  }

  it('curl -r 0-99: 206, Content-Range and the first 100 bytes', async () => {
    const out = join(dir, 'first100');
    const r = await curl(out, '-r', '0-99');
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 0-99/${CONTENT.length}`);
    expect(readFileSync(out).equals(CONTENT.subarray(0, 100))).toBe(true);
  });

  it('curl -r with two ranges: a multipart/byteranges body holding both', async () => {
    const out = join(dir, 'two');
    const r = await curl(out, '-r', '0-9,1048576-1048585');
    expect(r.status).toBe(206);
    const boundary = /^multipart\/byteranges; boundary=(\S+)$/.exec(r.headers['content-type']!)![1]!;
    const body = readFileSync(out);
    expect(body.length).toBe(Number(r.headers['content-length']));
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-9/${CONTENT.length}\r\n\r\n`),
      CONTENT.subarray(0, 10),
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 1048576-1048585/${CONTENT.length}\r\n\r\n`,
      ),
      CONTENT.subarray(1048576, 1048586),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(body.equals(expected)).toBe(true);
  });

  it('curl -C - completes a partial download (the first MiB fetched with -r): same SHA-256 as the file', async () => {
    const out = join(dir, 'resumed-after-range');
    expect((await curl(out, '-r', '0-1048575')).status).toBe(206);
    const r = await curl(out, '-C', '-');
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes 1048576-${CONTENT.length - 1}/${CONTENT.length}`);
    expect(sha256(readFileSync(out))).toBe(sha256(CONTENT));
  });

  it('curl -C - resumes a download that was killed part-way: same SHA-256 as the file', async () => {
    const out = join(dir, 'killed');
    // A slow download, killed once some bytes (but not all) are on disk.
    const slow = spawn('curl', ['-s', '--limit-rate', '64K', '-o', out, url], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => slow.once('exit', () => resolve()));
    try {
      await vi.waitFor(
        () => {
          expect(statSync(out, { throwIfNoEntry: false })?.size ?? 0).toBeGreaterThan(16 * 1024);
        },
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      slow.kill('SIGKILL');
      await exited;
    }
    const partial = statSync(out).size;
    expect(partial).toBeLessThan(CONTENT.length);
    const r = await curl(out, '-C', '-');
    expect(r.status).toBe(206);
    expect(r.headers['content-range']).toBe(`bytes ${partial}-${CONTENT.length - 1}/${CONTENT.length}`);
    expect(sha256(readFileSync(out))).toBe(sha256(CONTENT));
  });

  it('curl -I: Accept-Ranges: bytes and the full Content-Length, no body', async () => {
    const { stdout } = await run('curl', ['-s', '-I', '--max-time', '5', url], { encoding: 'utf8' });
    expect(stdout).toMatch(/^HTTP\/1\.1 200/);
    expect(stdout).toMatch(/\r\naccept-ranges: bytes\r\n/i);
    expect(stdout).toMatch(new RegExp(`\\r\\ncontent-length: ${CONTENT.length}\\r\\n`, 'i'));
  });
});

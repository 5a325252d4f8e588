/**
 * Uploads over a real loopback socket: what a client sees, and what happens to the partial file
 * when the client goes away mid-body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, type FileRecord } from '../../../src/domain/files/service.js';
import { MemoryRecordStore } from '../../../src/storage/index.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../../storage/temp-dirs.js';
import { binaryContent, filePart, multipartBody, multipartHeaders, storedFiles } from './uploads-multipart.js';

const tempDir = useTempDirs('files-http');
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose only route uploads; `outcomes` receives each upload's settled result. */
async function start(maxFileBytes?: number) {
  const dir = await tempDir();
  const store = new MemoryRecordStore();
  await store.open();
  const files = new FileStore({ dir, store, ...(maxFileBytes === undefined ? {} : { maxFileBytes }) });
  await files.init();
  const outcomes: Array<Promise<FileRecord>> = [];
  server = createServer((req, res) => {
    const upload = files.upload(req, req.headers);
    outcomes.push(upload);
    upload.then(
      (record) => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(record)),
      (error: { status?: number; code?: string }) => {
        if (!res.writable) return;
        res.writeHead(error.status ?? 500, { 'content-type': 'application/json', connection: 'close' });
        res.end(JSON.stringify({ code: error.code }));
      },
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/upload`;
  return { dir, store, url, outcomes };
}

describe('upload over HTTP', () => {
  it('201 with the File record', async () => {
    const { url, store } = await start();
    const body = multipartBody([filePart(binaryContent(300_000), 'data.bin', 'application/octet-stream')]);
    const res = await request(url, { method: 'POST', headers: multipartHeaders(body), body });
    expect(res.statusCode).toBe(201);
    const record = (await res.body.json()) as FileRecord;
    expect(record).toMatchObject({ filename: 'data.bin', size: 300_000, contentType: 'application/octet-stream' });
    expect(store.get('files', record.id)).toEqual(record);
  });

  it('the client receives 413 while still sending a far too large file', async () => {
    const { url, dir } = await start(64 * 1024);
    const body = multipartBody([filePart(binaryContent(8 * 1024 * 1024))]);
    const headers = multipartHeaders(); // chunked: no Content-Length shortcut
    const res = await request(url, { method: 'POST', headers, body: Readable.from(chunked(body)) });
    expect(res.statusCode).toBe(413);
    expect(await res.body.json()).toEqual({ code: 'UPLOAD_FILE_TOO_LARGE' });
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('the client receives 400 for a malformed part header sent early in a large body', async () => {
    const { url } = await start();
    const bad = Buffer.from(`--${'b'}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n${'X'.repeat(20_000)}\r\n\r\n`);
    const body = Buffer.concat([bad, Buffer.alloc(2 * 1024 * 1024, 97)]);
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=b' }, body });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toEqual({ code: 'UPLOAD_MALFORMED' });
  });

  it('deletes the partial file when the client aborts mid-upload', async () => {
    const { url, dir, outcomes, store } = await start();
    const head = multipartBody([filePart(binaryContent(1024 * 1024))], { close: false }).subarray(0, 200_000);
    const body = new PassThrough();
    body.write(head); // the rest never comes
    const client = new AbortController();
    const res = request(url, { method: 'POST', headers: multipartHeaders(), body, signal: client.signal });
    res.catch(() => undefined);

    await until(async () => (await storedFiles(dir)).includes('1.part'), 'the part file 1.part');
    client.abort();

    expect(outcomes).toHaveLength(1);
    await expect(outcomes[0]).rejects.toMatchObject({ status: 400, code: 'UPLOAD_ABORTED' });
    expect(await storedFiles(dir)).toEqual([]);
    expect(store.size('files')).toBe(0);
    await expect(res).rejects.toThrow();
  });
});

/** The body in 64 KiB pieces; as a stream, undici sends it chunked, without Content-Length. */
async function* chunked(body: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < body.length; at += 64 * 1024) yield body.subarray(at, at + 64 * 1024);
}

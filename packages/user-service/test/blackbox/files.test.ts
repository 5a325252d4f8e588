/**
 * Black-box tests of upload and download against the real server (UPLOAD_MAX_BYTES=1024 so the
 * size limit is cheap to hit): the File record, exact bytes back with safe download headers,
 * 413/400/415 without leftovers in DATA_DIR/files, hostile ids, and durability across a restart.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, removeDir, startServer, type HttpResult, type RunningServer } from '../helpers/server.js';
import { binaryContent, fieldPart, filePart, multipartBody, BOUNDARY, type Part } from '../domain/files/uploads-multipart.js';

const MAX = 1024;

function upload(server: RunningServer, parts: Part[], options: { close?: boolean } = {}): Promise<HttpResult> {
  const body = multipartBody(parts, options);
  return http(server.url, 'POST', '/api/files/upload', {
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
}

/** Names in DATA_DIR/files. */
function stored(server: RunningServer): Promise<string[]> {
  return readdir(join(server.dataDir, 'files')).then((names) => names.sort());
}

describe('files (black box)', () => {
  let server: RunningServer;
  /** Files the test uploaded successfully: id → bytes. */
  const uploaded = new Map<number, Buffer>();

  beforeAll(async () => {
    server = await startServer({ env: { UPLOAD_MAX_BYTES: String(MAX) } });
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    removeDir(server.dataDir);
  });

  it('POST /api/files/upload answers 201 with the File record and a Location', async () => {
    const bytes = binaryContent(1000);
    const r = await upload(server, [filePart(bytes, 'data.bin', 'image/png'), fieldPart('description', 'a picture')]);
    expect(r.status).toBe(201);
    const record = r.json();
    expect(record).toMatchObject({ filename: 'data.bin', size: 1000, contentType: 'image/png', description: 'a picture' });
    expect(Number.isSafeInteger(record.id) && record.id >= 1).toBe(true);
    expect(r.headers.location).toMatch(new RegExp(`/api/files/${record.id}$`));
    uploaded.set(record.id, bytes);
    const meta = await http(server.url, 'GET', `/api/files/${record.id}`);
    expect(meta.status).toBe(200);
    expect(meta.json()).toMatchObject({ id: record.id, filename: 'data.bin', size: 1000 });
  });

  it('answers 404 for a stored file spelled with leading zeros: one URL per file', async () => {
    const [id] = [...uploaded][0]!;
    for (const path of [`/api/files/0${id}`, `/api/files/000${id}`, `/api/files/0${id}/download`]) {
      const r = await http(server.url, 'GET', path);
      expect(r.status).toBe(404);
      expect(r.json()).toMatchObject({ status: 404, error: 'Not Found', path });
    }
  });

  it('downloads the exact bytes as an attachment with safe headers', async () => {
    const [id, bytes] = [...uploaded][0]!;
    const r = await http(server.url, 'GET', `/api/files/${id}/download`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.headers['content-disposition']).toMatch(/^attachment;.*filename\*=UTF-8''data\.bin/);
    expect(r.headers['content-length']).toBe(String(bytes.length));
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    // http() decodes the body as UTF-8 text; fetch gives the raw bytes.
    const raw = await fetch(`${server.url}/api/files/${id}/download`).then(async (res) => Buffer.from(await res.arrayBuffer()));
    expect(raw.equals(bytes)).toBe(true);
  });

  it('answers byte ranges of a download (RFC 9110 §14): 206, multipart/byteranges, 416, If-Range, and 304 by ETag', async () => {
    const [id, bytes] = [...uploaded][0]!;
    const url = `${server.url}/api/files/${id}/download`;
    const whole = await fetch(url);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    await whole.arrayBuffer();

    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`);
    expect(part.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);

    const several = await fetch(url, { headers: { range: 'bytes=0-9,-10' } });
    expect(several.status).toBe(206);
    expect(several.headers.get('content-type')).toMatch(/^multipart\/byteranges; boundary=/);
    const body = Buffer.from(await several.arrayBuffer());
    expect(body.includes(bytes.subarray(0, 10))).toBe(true);
    expect(body.includes(bytes.subarray(bytes.length - 10))).toBe(true);

    const none = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(none.status).toBe(416);
    expect(none.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await none.json()).toMatchObject({ status: 416, error: 'Range Not Satisfiable' });

    const fresh = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(fresh.status).toBe(206);
    await fresh.arrayBuffer();
    const stale = await fetch(url, { headers: { range: 'bytes=0-9', 'if-range': '"stale"' } });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(bytes)).toBe(true);

    const notModified = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
  });

  it('accepts exactly UPLOAD_MAX_BYTES', async () => {
    const bytes = binaryContent(MAX);
    const r = await upload(server, [filePart(bytes, 'max.bin', 'application/octet-stream')]);
    expect(r.status).toBe(201);
    expect(r.json().size).toBe(MAX);
    uploaded.set(r.json().id, bytes);
  });

  it('keeps a hostile filename as metadata only and encodes it in Content-Disposition', async () => {
    // A quoted-string with escaped quotes, as RFC 7578 clients send it; the path part is dropped.
    const r = await upload(server, [filePart('hi', '../../r\u00e9sum\u00e9 \\"v2\\".txt', 'text/plain')]);
    expect(r.status).toBe(201);
    const record = r.json();
    expect(record.filename).toBe('r\u00e9sum\u00e9 "v2".txt');
    const d = await http(server.url, 'GET', `/api/files/${record.id}/download`);
    expect(d.status).toBe(200);
    expect(d.text).toBe('hi');
    expect(d.headers['content-disposition']).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.txt");
    // The plain filename parameter stays a valid quoted ASCII string.
    expect(d.headers['content-disposition']).toMatch(/filename="[\x20-\x7e]*"/);
    expect(await stored(server)).toEqual(expect.arrayContaining([`${record.id}.bin`]));
    uploaded.set(record.id, Buffer.from('hi'));
  });

  it('answers 413 for a file one byte over the limit and leaves no partial file behind', async () => {
    const before = await stored(server);
    const r = await upload(server, [filePart(binaryContent(MAX + 1), 'big.bin', 'application/octet-stream')]);
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({
      status: 413,
      error: 'Payload Too Large',
      message: `File too large: files of at most ${MAX} bytes are accepted`,
    });
    expect(await stored(server)).toEqual(before);
  });

  it('answers 413 for a far too large body (declared Content-Length) and leaves nothing behind', async () => {
    const before = await stored(server);
    const r = await upload(server, [filePart(binaryContent(2 * 1024 * 1024), 'huge.bin', 'application/octet-stream')]);
    expect(r.status).toBe(413);
    // The limit the operator configured (UPLOAD_MAX_BYTES), not the reader's bound on the whole body.
    expect(r.json()).toMatchObject({
      status: 413,
      message: `Upload too large: files of at most ${MAX} bytes are accepted`,
      path: '/api/files/upload',
    });
    expect(await stored(server)).toEqual(before);
  });

  it('answers 413 for two file parts', async () => {
    const before = await stored(server);
    const r = await upload(server, [filePart('one', 'a.txt'), filePart('two', 'b.txt')]);
    expect(r.status).toBe(413);
    expect(await stored(server)).toEqual(before);
  });

  it.each([
    ['no file part', [fieldPart('description', 'only text')]],
    ['an empty file', [filePart('', 'empty.txt')]],
  ])('answers 400 for %s', async (_name, parts) => {
    const before = await stored(server);
    const r = await upload(server, parts);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ status: 400, error: 'Bad Request' });
    expect(await stored(server)).toEqual(before);
  });

  it('answers 400 for a truncated multipart body and for a missing boundary', async () => {
    const before = await stored(server);
    const truncated = await upload(server, [filePart('abc', 'a.txt')], { close: false });
    expect(truncated.status).toBe(400);
    const noBoundary = await http(server.url, 'POST', '/api/files/upload', {
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    });
    expect(noBoundary.status).toBe(400);
    expect(await stored(server)).toEqual(before);
  });

  it.each([
    ['application/json', '{"file":"x"}'],
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'file=x'],
  ])('answers 415 for a %s body', async (contentType, body) => {
    const r = await http(server.url, 'POST', '/api/files/upload', { headers: { 'content-type': contentType }, body });
    expect(r.status).toBe(415);
  });

  it.each([
    '..%2f..%2fetc%2fpasswd',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '1.5',
    '-1',
    '0',
    'abc',
    '1e3',
    '0x1',
    '99999999',
    '99999999999999999999',
    '1%00',
    '%20%31',
  ])('GET /api/files/%s/download answers 404 (never 500, never a foreign file)', async (id) => {
    const r = await http(server.url, 'GET', `/api/files/${id}/download`);
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.text).not.toMatch(/root:|\/bin\/|ENOENT/);
  });

  it('serves the seeded file 1 and only committed files are on disk', async () => {
    const r = await http(server.url, 'GET', '/api/files/1/download');
    expect(r.status).toBe(200);
    expect(r.text.length).toBeGreaterThan(0);
    const names = await stored(server);
    expect(names.every((n) => /^\d+\.bin$/.test(n))).toBe(true);
    expect(names).toEqual(['1.bin', ...[...uploaded.keys()].map((id) => `${id}.bin`)].sort());
  });

  it('keeps uploaded files across a restart on the same DATA_DIR', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
    server = await startServer({ dataDir: server.dataDir, env: { UPLOAD_MAX_BYTES: String(MAX) } });
    for (const [id, bytes] of uploaded) {
      const raw = await fetch(`${server.url}/api/files/${id}/download`);
      expect(raw.status).toBe(200);
      expect(Buffer.from(await raw.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // The id allocator continues after the restart: a new upload does not overwrite an old file.
    const r = await upload(server, [filePart('after restart', 'new.txt')]);
    expect(r.status).toBe(201);
    expect(uploaded.has(r.json().id)).toBe(false);
  });
});

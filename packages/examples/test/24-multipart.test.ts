import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/24-multipart/app.js';
import { listen, send, type Running } from './helpers/http.js';

/** `size` deterministic bytes. */
const bytes = (size: number): Buffer => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7) & 0xff));

describe('24 multipart, over a real socket', () => {
  let server: Running;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'example-24-'));
    server = await listen(createApp(dir));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const upload = (form: FormData, path = '/files') => request(`${server.url}${path}`, { method: 'POST', body: form });

  it('streams the file part to the upload dir and answers 201 with what it stored', async () => {
    const content = bytes(300_000);
    const form = new FormData();
    form.append('title', 'Holiday');
    form.append('file', new Blob([content], { type: 'image/jpeg' }), '../beach.jpg');
    const res = await upload(form);
    expect(res.statusCode).toBe(201);
    const body = (await res.body.json()) as { id: number };
    expect(body).toEqual({ id: 1, title: 'Holiday', filename: 'beach.jpg', type: 'image/jpeg', size: content.length });
    expect(res.headers.location).toBe(`${server.url}/files/1`);
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('answers multipart/mixed with the metadata and the bytes', async () => {
    const res = await send(server.url, '/files/1/bundle');
    expect(res.status).toBe(200);
    const boundary = /^multipart\/mixed; boundary=(.+)$/.exec(String(res.headers['content-type']))![1]!;
    const parts = res.body.toString('latin1').split(`--${boundary}`);
    expect(parts).toHaveLength(4); // preamble, two parts, the closing `--`
    expect(parts[1]).toContain(
      'Content-Type: application/json\r\n\r\n{"id":1,"title":"Holiday","filename":"beach.jpg","type":"image/jpeg","size":300000}',
    );
    expect(parts[2]).toContain('Content-Disposition: attachment; name="file"; filename="beach.jpg"\r\nContent-Type: image/jpeg\r\n\r\n');
    const file = Buffer.from(parts[2]!.slice(parts[2]!.indexOf('\r\n\r\n') + 4, -2), 'latin1');
    expect(file.equals(bytes(300_000))).toBe(true);
  });

  it('answers 413 for a file over 5 MiB and keeps nothing of it', async () => {
    const form = new FormData();
    form.append('title', 'Too big');
    form.append('file', new Blob([Buffer.alloc(5 * 1024 * 1024 + 1)]), 'big.bin');
    const res = await upload(form);
    expect(res.statusCode).toBe(413);
    expect(await res.body.json()).toMatchObject({ code: 'PIPE_MULTIPART_PART_TOO_LARGE' });
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('gives named parts to @FormParam parameters', async () => {
    const form = new FormData();
    form.append('caption', 'Me');
    form.append('image', new Blob([bytes(100_000)], { type: 'image/png' }), 'me.png');
    const res = await upload(form, '/avatars');
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ caption: 'Me', filename: 'me.png', type: 'image/png', bytes: 100_000 });
    const notImage = new FormData();
    notImage.append('image', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const refused = await upload(notImage, '/avatars');
    expect(refused.statusCode).toBe(400);
    await refused.body.dump();
  });
});

/**
 * Hand-built multipart/form-data bodies for the upload tests (RFC 7578), so every byte the parser
 * sees is under the test's control, including malformed ones.
 */
import { readdir } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';

export const BOUNDARY = '----vitest-Boundary-7MA4YWxkTrZu0gW';

/** A part: `headers` are written as given, so they can be hostile. */
export interface Part {
  headers: string[];
  body: string | Buffer;
}

/** A file part named `name` (default `file`). */
export function filePart(body: string | Buffer, filename = 'hello.txt', contentType = 'text/plain', name = 'file'): Part {
  return {
    headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, `Content-Type: ${contentType}`],
    body,
  };
}

/** A plain field. */
export function fieldPart(name: string, value: string): Part {
  return { headers: [`Content-Disposition: form-data; name="${name}"`], body: value };
}

/** Joins parts into a body; `close: false` leaves out the closing delimiter (a truncated body). */
export function multipartBody(parts: Part[], options: { boundary?: string; close?: boolean } = {}): Buffer {
  const boundary = options.boundary ?? BOUNDARY;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`, 'utf8'));
    chunks.push(typeof part.body === 'string' ? Buffer.from(part.body, 'utf8') : part.body);
    chunks.push(Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Request headers of a multipart body. */
export function multipartHeaders(body?: Buffer, boundary = BOUNDARY): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (body !== undefined) headers['content-length'] = String(body.length);
  return headers;
}

/** The body as a stream of `chunkSize` slices, like a socket delivers it. */
export function bodyStream(body: Buffer, chunkSize = 16 * 1024): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunkSize) chunks.push(body.subarray(at, at + chunkSize));
  return Readable.from(chunks, { objectMode: false });
}

/** Deterministic binary content, every byte value present. */
export function binaryContent(size: number): Buffer {
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = (i * 31 + (i >> 8)) & 0xff;
  return buf;
}

/** Names in `${dir}/files` (empty when the directory does not exist). */
export async function storedFiles(dir: string): Promise<string[]> {
  return readdir(join(dir, 'files')).catch(() => []);
}

/** Asserts `promise` rejects with an HTTP error of `status` (and `code` when given). */
export async function expectHttpError(promise: Promise<unknown>, status: number, code?: string): Promise<void> {
  const error: unknown = await promise.then(
    () => {
      throw new Error(`expected HTTP ${status}, got success`);
    },
    (e: unknown) => e,
  );
  expect(error).toMatchObject(code === undefined ? { status } : { status, code });
}

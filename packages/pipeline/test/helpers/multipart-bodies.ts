/**
 * Hand-built multipart/form-data bodies (RFC 7578) for the multipart tests, so every byte the
 * parser sees is the test's, malformed ones included.
 */
export const BOUNDARY = 'test-Boundary-7MA4YWxkTrZu0gW';

/** A part: `headers` are written as given, so they can be hostile. */
export interface Part {
  headers: string[];
  body: string | Buffer;
}

/** A file part (`filename` given). */
export function filePart(name: string, body: string | Buffer, filename = 'a.txt', contentType = 'text/plain'): Part {
  return { headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, `Content-Type: ${contentType}`], body };
}

/** A text field. */
export function fieldPart(name: string, value: string, extra: string[] = []): Part {
  return { headers: [`Content-Disposition: form-data; name="${name}"`, ...extra], body: value };
}

/** The parts as a body; `close: false` leaves out the closing delimiter (a truncated body). */
export function multipart(parts: Part[], options: { boundary?: string; close?: boolean } = {}): Buffer {
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

/** The request Content-Type of a body made by {@link multipart}. */
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** Deterministic bytes, every byte value present. */
export function bytes(size: number, seed = 0): Buffer {
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = (i * 31 + (i >> 8) + seed) & 0xff;
  return buf;
}

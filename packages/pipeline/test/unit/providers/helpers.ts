import { Readable } from 'node:stream';
import { parseMediaType, type MediaType } from '../../../src/core/http/media-type.js';
import type { ReadContext } from '../../../src/core/context/contracts.js';
import type { ContainerRequestContext } from '../../../src/core/context/request-context.js';
import type { ContainerResponseContext, WriteContext } from '../../../src/core/context/contracts.js';

/** A ReadContext for unit tests: readers only use `limit` and `contentLength`. */
export function readCtx(limit = 1024 * 1024, contentLength?: number): ReadContext {
  return { request: {} as ContainerRequestContext, headers: {}, limit, contentLength };
}

/** A WriteContext for unit tests: writers do not use it. */
export const writeCtx: WriteContext = { request: {} as ContainerRequestContext, response: {} as ContainerResponseContext };

/** Parses a media type or fails the test. */
export function mt(s: string): MediaType {
  const m = parseMediaType(s);
  if (m === undefined) throw new Error(`bad media type in test: ${s}`);
  return m;
}

/** A byte stream of the given chunks (strings are UTF-8). */
export function bytes(...chunks: (string | Buffer)[]): Readable {
  return Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
}

/** Awaits a promise expected to reject and returns the error (fails if it resolves). */
export async function rejection(p: Promise<unknown> | unknown): Promise<Error & { status?: number; code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { status?: number; code?: string };
  }
  throw new Error('expected a rejection');
}

/** Collects a stream into one Buffer. */
export async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

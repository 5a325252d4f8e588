import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { ZstdFrameCheck } from './zstd-frame-check.js';
import type { ExclusiveRole } from '../../core/internal/exclusive-roles.js';

/**
 * The content codings the pipeline can apply and decode (RFC 9110 §8.4.1): `gzip` (RFC 1952), `br`
 * (brotli, RFC 7932) and `zstd` (RFC 8878, where the running Node's `node:zlib` has it: 22.15+ and
 * 23.8+). `deflate` is not among them: the name has meant both zlib-wrapped and raw deflate in
 * practice (RFC 9110 §8.4.1.2 notes the confusion), and gzip does the same work unambiguously.
 */
export type ContentCoding = 'zstd' | 'br' | 'gzip';

/** What the pipeline needs of zstd in `node:zlib`, which Node 20's type definitions lack. */
interface ZstdZlib {
  zstdCompressSync(input: Uint8Array): Buffer;
  zstdDecompressSync(input: Uint8Array): Buffer;
  createZstdCompress(options?: { params?: Record<number, number> }): Transform;
  createZstdDecompress(options?: { params?: Record<number, number> }): Transform;
  zstdCompress(
    input: string | Uint8Array,
    options: { params?: Record<number, number> },
    callback: (error: Error | null, result: Buffer) => void,
  ): void;
}

/** zstd's functions when this Node has them (detected, never assumed from the version). */
const zstd: ZstdZlib | undefined = (() => {
  const create = Reflect.get(zlib, 'createZstdCompress');
  const decompress = Reflect.get(zlib, 'createZstdDecompress');
  const once = Reflect.get(zlib, 'zstdCompress');
  const compressSync = Reflect.get(zlib, 'zstdCompressSync');
  const decompressSync = Reflect.get(zlib, 'zstdDecompressSync');
  const all = [create, decompress, once, compressSync, decompressSync];
  if (all.some((fn) => typeof fn !== 'function')) return undefined;
  return {
    createZstdCompress: create,
    createZstdDecompress: decompress,
    zstdCompress: once,
    zstdCompressSync: compressSync,
    zstdDecompressSync: decompressSync,
  } as ZstdZlib;
})();

/** `ZSTD_c_compressionLevel` (100 in zstd.h), read from `zlib.constants` when present. */
const ZSTD_LEVEL_PARAM: number = (() => {
  const value: unknown = Reflect.get(zlib.constants, 'ZSTD_c_compressionLevel');
  return typeof value === 'number' ? value : 100;
})();

/** `ZSTD_d_windowLogMax` (100 in zstd.h, a different enum from the compression parameters). */
const ZSTD_WINDOW_LOG_MAX_PARAM: number = (() => {
  const value: unknown = Reflect.get(zlib.constants, 'ZSTD_d_windowLogMax');
  return typeof value === 'number' ? value : 100;
})();

/**
 * Does this Node's zstd decoder fail on a truncated frame? Node 22's ends quietly with what it
 * decoded (24 reports "unexpected end of file"): probed once, on a frame cut by one byte, when the
 * first zstd body is decoded (an application that never sees one never pays for it); where it does
 * not, {@link ZstdFrameCheck} finds the truncation instead.
 */
let zstdReportsTruncation: boolean | undefined;
function probeZstdTruncation(api: ZstdZlib): boolean {
  if (zstdReportsTruncation !== undefined) return zstdReportsTruncation;
  const frame = api.zstdCompressSync(Buffer.from('truncation probe'));
  try {
    api.zstdDecompressSync(frame.subarray(0, frame.length - 1));
    zstdReportsTruncation = false;
  } catch {
    zstdReportsTruncation = true;
  }
  return zstdReportsTruncation;
}

/** true when the running Node's `node:zlib` has zstd (`createZstdCompress`: Node 22.15+, 23.8+). */
export const ZSTD_AVAILABLE: boolean = zstd !== undefined;

/**
 * The codings this Node supports, in the pipeline's default preference among equal weights: zstd,
 * then br, then gzip. On the service's 1 000-user JSON, zstd at its default level costs about a
 * tenth of the CPU of brotli at 5 for a body a quarter larger, and both beat gzip at 6 on size;
 * dynamic API answers are compressed once per response, so CPU comes first (docs/compression.md).
 */
export const AVAILABLE_CONTENT_CODINGS: readonly ContentCoding[] = ZSTD_AVAILABLE ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];

/** Range and default of each coding's level (brotli calls it quality). */
export const CODING_LEVELS: Readonly<Record<ContentCoding, { readonly min: number; readonly max: number; readonly default: number }>> = {
  // zlib's default (6); -1 means that default too.
  gzip: { min: -1, max: 9, default: 6 },
  // brotli's own default (11) costs over 100 times the CPU of 5 on dynamic JSON; 5 costs about what
  // gzip 6 costs for a body a third smaller (4 is barely cheaper and much larger on big bodies).
  br: { min: 0, max: 11, default: 5 },
  // zstd's own default; 20-22 ("ultra") need windows above RFC 9659's 8 MB and are refused.
  zstd: { min: 1, max: 19, default: 3 },
};

/** Is `value` a coding the pipeline knows (supported here or not)? */
export function isContentCoding(value: unknown): value is ContentCoding {
  return value === 'gzip' || value === 'br' || value === 'zstd';
}

/** The coding named by a `Content-Encoding` token (lower case), with gzip's alias (RFC 9110 §8.4.1.3). */
export function codingOf(token: string): ContentCoding | undefined {
  if (token === 'gzip' || token === 'x-gzip') return 'gzip';
  if (token === 'br') return 'br';
  if (token === 'zstd' && ZSTD_AVAILABLE) return 'zstd';
  return undefined;
}

function brotliParams(level: number, sizeHint: number | undefined): zlib.BrotliOptions {
  const params: Record<number, number> = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: level,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  };
  if (sizeHint !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = sizeHint;
  return { params };
}

function requireZstd(): ZstdZlib {
  if (zstd === undefined) throw new Error('zstd is not available in this Node (node:zlib has no createZstdCompress)');
  return zstd;
}

/** A streaming encoder for `coding` at `level`. */
export function createEncoder(coding: ContentCoding, level: number): Transform {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip({ level });
    case 'br':
      return zlib.createBrotliCompress(brotliParams(level, undefined));
    case 'zstd':
      return requireZstd().createZstdCompress({ params: { [ZSTD_LEVEL_PARAM]: level } });
  }
}

/**
 * The streaming stages that decode `coding`, in order: the decoder, preceded for zstd by a
 * {@link ZstdFrameCheck} where this Node's decoder does not report truncated frames.
 */
export function createDecoderStages(coding: ContentCoding): [Transform, ...Transform[]] {
  switch (coding) {
    case 'gzip':
      return [zlib.createGunzip()];
    case 'br':
      return [zlib.createBrotliDecompress()];
    case 'zstd': {
      // RFC 9659 §3: a zstd content coding's window is at most 8 MB (2^23); a frame asking for more
      // would make the decoder allocate up to zstd's own limit (128 MB) for a few bytes of input.
      const api = requireZstd();
      const decoder = api.createZstdDecompress({ params: { [ZSTD_WINDOW_LOG_MAX_PARAM]: 23 } });
      return probeZstdTruncation(api) ? [decoder] : [new ZstdFrameCheck(), decoder];
    }
  }
}

/** `body` encoded in one buffer, on zlib's thread pool (the event loop is not blocked). */
export function encode(coding: ContentCoding, body: string | Uint8Array, level: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer): void => (error === null ? resolve(result) : reject(error));
    switch (coding) {
      case 'gzip':
        return zlib.gzip(body, { level }, done);
      case 'br':
        return zlib.brotliCompress(body, brotliParams(level, typeof body === 'string' ? undefined : body.byteLength), done);
      case 'zstd':
        return requireZstd().zstdCompress(body, { params: { [ZSTD_LEVEL_PARAM]: level } }, done);
    }
  });
}

/**
 * Did a decoder fail on its input (corrupt or truncated data)? zlib's errors have `Z_` codes,
 * brotli's `ERR__ERROR_…` (Node prefixes the decoder's error name), zstd's `ZSTD_error_…`.
 */
export function isDecoderDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ZSTD_error_'));
}

/**
 * The roles of the coding providers (a response coder, a request decoder, a coded-tag filter):
 * one application takes one of each. Two would both run: the inner writer interceptor codes the
 * body and the outer one skips it, but a 304 (which no coder codes) gets both tag suffixes
 * (`"v1-gzip-br"`), and the first reader interceptor refuses with 415 a coding only the second
 * decodes. `build()` refuses the combination (`PIPELINE_PROVIDER_CONFLICT`, docs/compression.md).
 */
export function contentCodingRole(direction: 'responses' | 'requests' | 'entity tags'): ExclusiveRole {
  return {
    key: `content coding of ${direction}`,
    what:
      'each sets up content coding (RFC 9110 §8.4), and both would run on every request (a 304 would get two ETag suffixes, ' +
      'a request body in a coding only one of them decodes could be refused with 415 by the other)',
    fix: "Register only one: ContentEncodingFeature alone covers what GzipFeature does (codings: ['gzip'] for gzip only)",
  };
}

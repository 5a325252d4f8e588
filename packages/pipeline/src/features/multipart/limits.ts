/** Limits of one multipart body: options of {@link MultipartFeature} and {@link readMultipart}. */
export interface MultipartLimits {
  /** Bytes of one file part (a part with a filename); one more is 413 `PIPE_MULTIPART_PART_TOO_LARGE`. Default 10 MiB. */
  partSize: number;
  /** Parts in the body, of any kind; one more is 413 `PIPE_MULTIPART_TOO_MANY_PARTS`. Default 100. */
  parts: number;
  /** Bytes of one text field (a part without a filename); one more is 413 `PIPE_MULTIPART_FIELD_TOO_LARGE`. Default 64 KiB. */
  fieldSize: number;
  /**
   * Bytes of one part's header block; more is 413 `PIPE_MULTIPART_HEADER_TOO_LARGE`. Default and
   * maximum 16 KiB (busboy refuses larger header blocks as malformed).
   */
  headerSize: number;
  /** Bytes of the whole body (decoded, for a compressed body); one more is 413 `PIPE_BODY_TOO_LARGE`. Default 100 MiB. */
  totalSize: number;
}

/** busboy's own fixed cap on a part's header block. */
export const MAX_HEADER_SIZE = 16 * 1024;

/**
 * Defaults of {@link MultipartLimits}: file parts up to 10 MiB, 100 parts, text fields up to 64
 * KiB, part headers up to 16 KiB, 100 MiB in all.
 *
 * @example
 * new MultipartFeature({ limits: { ...DEFAULT_MULTIPART_LIMITS, partSize: 1024 ** 3, totalSize: 1024 ** 3 + 65536 } });
 */
export const DEFAULT_MULTIPART_LIMITS: Readonly<MultipartLimits> = Object.freeze({
  partSize: 10 * 1024 * 1024,
  parts: 100,
  fieldSize: 64 * 1024,
  headerSize: MAX_HEADER_SIZE,
  totalSize: 100 * 1024 * 1024,
});

/**
 * The limits with defaults filled in; throws a `TypeError` naming `owner` and the key for a value
 * that is not a positive safe integer, a key that is not a limit, or a header size above 16 KiB.
 */
export function resolveLimits(limits: Partial<MultipartLimits> | undefined, owner: string): Readonly<MultipartLimits> {
  const out: MultipartLimits = { ...DEFAULT_MULTIPART_LIMITS };
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (!(key in DEFAULT_MULTIPART_LIMITS)) {
      throw new TypeError(`${owner}: '${key}' is not a multipart limit (limits are ${Object.keys(DEFAULT_MULTIPART_LIMITS).join(', ')})`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${owner}: limits.${key} must be a positive integer, got ${String(value)}`);
    }
    out[key as keyof MultipartLimits] = value;
  }
  if (out.headerSize > MAX_HEADER_SIZE) {
    throw new TypeError(`${owner}: limits.headerSize must be at most ${MAX_HEADER_SIZE} (busboy's cap on a part's header block)`);
  }
  return Object.freeze(out);
}

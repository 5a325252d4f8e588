/**
 * Pure helpers for the metadata of stored files: the client's filename kept as escaped metadata
 * (never a path), the part's media type, the download `Content-Disposition`, and the file id taken
 * from a URL. OWASP File Upload Cheat Sheet: store under a server-generated id, keep the name as metadata.
 */
import { NotFoundError } from '@jaxrs-node/pipeline';
import { parseRecordId } from '../common/record-id.js';

/** Longest kept filename, in code points (the usual file-system limit for one path segment). */
export const MAX_FILENAME_LENGTH = 255;

/** Media type used when a part's type is missing or not a syntactically valid `type/subtype`. */
export const FALLBACK_MEDIA_TYPE = 'application/octet-stream';

// A high surrogate not followed by a low one, or a low one not preceded by a high one: such strings
// cannot be encoded as UTF-8 (encodeURIComponent throws URIError on them).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Path separators, C0/C1 controls and the bidi controls that make `evil\u202Etxt.exe` display as
// `evilexe.txt` in a save dialog.
const UNSAFE_IN_FILENAME = /[\u0000-\u001F\u007F-\u009F/\\\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// Controls other than TAB, LF and CR have no business in free text and break some log viewers.
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
// RFC 9110 §8.3.1: type "/" subtype, both tokens (§5.6.2).
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]{1,127}\/[!#$%&'*+.^_`|~0-9a-z-]{1,127}$/i;
// RFC 8187 attr-char excludes these four characters that encodeURIComponent leaves alone.
const NOT_ATTR_CHAR = /['()*]/g;

/**
 * Makes a client-supplied filename safe to keep as metadata: removes path separators, control and
 * bidi characters, repairs lone surrogates, NFC-normalises and cuts to 255 code points. Names that
 * end up empty or made only of dots become `fallback`.
 *
 * @example sanitizeFilename('..\\..\\boot.ini') // '....boot.ini'
 */
export function sanitizeFilename(raw: string | undefined, fallback = 'upload'): string {
  const cleaned = (raw ?? '').replace(LONE_SURROGATE, '\uFFFD').normalize('NFC').replace(UNSAFE_IN_FILENAME, '');
  // Array.from splits by code point, so the cut never leaves half of a surrogate pair.
  const name = Array.from(cleaned.trim()).slice(0, MAX_FILENAME_LENGTH).join('').trim();
  return name === '' || /^\.+$/.test(name) ? fallback : name;
}

/** Free text (the upload `description`): lone surrogates repaired, controls other than TAB/LF/CR removed. */
export function sanitizeText(raw: string): string {
  return raw.replace(LONE_SURROGATE, '\uFFFD').replace(UNSAFE_IN_TEXT, '');
}

/**
 * The part's media type, lower-cased, when it is a valid `type/subtype`; otherwise
 * {@link FALLBACK_MEDIA_TYPE}. Parameters are not kept (busboy reports the bare type).
 */
export function normalizeMediaType(raw: string | undefined): string {
  return raw !== undefined && MEDIA_TYPE.test(raw) ? raw.toLowerCase() : FALLBACK_MEDIA_TYPE;
}

/**
 * `Content-Disposition` for a download (RFC 6266 §4.3): an ASCII `filename` fallback for old
 * clients, with quotes, backslashes, `%` and non-ASCII replaced by `_`, plus the exact name as
 * RFC 8187 `filename*=UTF-8''…`. Clients that understand `filename*` prefer it.
 *
 * @example contentDisposition('résumé "v2".pdf')
 * // attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf
 */
export function contentDisposition(filename: string): string {
  const name = sanitizeFilename(filename, 'download');
  // `%` is replaced too: some clients percent-decode the plain parameter (RFC 6266 appendix D).
  const ascii = name.replace(/[^\u0020-\u007E]|["\\%]/gu, '_');
  const encoded = encodeURIComponent(name).replace(NOT_ATTR_CHAR, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The id of a stored file from a path parameter (see {@link parseRecordId}). Anything that is not
 * an id is answered like an absent file, 404, so probing learns nothing.
 *
 * @throws NotFoundError for anything that is not such an id.
 */
export function parseFileId(raw: string | number): number {
  // Canonical only (no leading zeros): one URL per file, as for users and orders.
  const id = parseRecordId(raw, { canonical: true });
  if (id === undefined) throw fileNotFound();
  return id;
}

/** The one 404 of the file store; it never echoes the client's input. */
export function fileNotFound(): NotFoundError {
  return new NotFoundError('File not found', { code: 'FILE_NOT_FOUND' });
}

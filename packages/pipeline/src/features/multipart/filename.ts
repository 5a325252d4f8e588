/** Longest safe filename, in code points (the usual file-system limit for one path segment). */
export const MAX_SAFE_FILENAME_LENGTH = 255;

// C0 and C1 controls (NUL included), DEL, and the bidi controls that make `evil\u202Etxt.exe`
// display as `evilexe.txt`.
const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A client's filename made safe to use as the last segment of a path: only what follows the last
 * `/` or `\` is kept (browsers send a bare name, RFC 7578 §4.2; old ones a whole path), control
 * and bidi characters go, every run of dots becomes one dot (so no `..`), leading dots and spaces
 * and trailing dots and spaces go (no hidden or Windows-truncated names), lone surrogates become
 * U+FFFD, the result is NFC-normalised and cut to 255 code points. `undefined` when nothing is
 * left. Still a name chosen by a client: store files under your own names and keep this one as
 * metadata (OWASP File Upload Cheat Sheet).
 *
 * @example
 * safeFilename('..\\..\\boot.ini');   // 'boot.ini'
 * safeFilename('../../etc/passwd');  // 'passwd'
 * safeFilename('..');                // undefined
 * safeFilename('r\u00e9sum\u00e9.pdf');       // 'résumé.pdf'
 */
export function safeFilename(filename: string | undefined): string | undefined {
  if (filename === undefined) return undefined;
  const last = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  const cleaned = last
    .replace(LONE_SURROGATE, '\uFFFD')
    .normalize('NFC')
    .replace(UNSAFE, '')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  // Array.from splits by code point, so the cut never leaves half of a surrogate pair.
  const name = Array.from(cleaned)
    .slice(0, MAX_SAFE_FILENAME_LENGTH)
    .join('')
    .replace(/[.\s]+$/, '');
  return name === '' ? undefined : name;
}

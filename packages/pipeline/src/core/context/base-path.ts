/**
 * The application's base path (`ApplicationOptions.basePath`, the counterpart of Jakarta REST
 * 3.1 §2.3.2 `@ApplicationPath`): every resource path is relative to it. Validated once at
 * construction; per request only {@link pathUnderBase} runs, and only when a base path is set.
 */

/** RFC 3986 §3.3 segment characters, `%XX` escapes and `/`. */
const PATH_CHARS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/**
 * Checks an `ApplicationOptions.basePath` value: a path such as `/api` or `/api/v1` that starts
 * with `/`, has no trailing `/`, no empty, `.` or `..` segments, no template variables, query or
 * fragment, and only URI path characters (anything else percent-encoded). `undefined` is no base
 * path.
 * @throws TypeError naming `basePath` and the fix.
 */
export function validateBasePath(basePath: unknown): string | undefined {
  if (basePath === undefined) return undefined;
  const bad = (why: string): TypeError =>
    new TypeError(`ApplicationOptions.basePath ${JSON.stringify(basePath)} ${why}; give a path such as '/api' or '/api/v1'`);
  if (typeof basePath !== 'string') throw bad('is not a string');
  if (basePath === '' || basePath === '/') throw bad('is the root: leave basePath out to serve at the root');
  if (!basePath.startsWith('/')) throw bad("must start with '/'");
  if (basePath.endsWith('/')) throw bad("must not end with '/'");
  if (/[{}]/.test(basePath)) throw bad('must not hold template variables: it is a fixed prefix');
  if (/[?#]/.test(basePath)) throw bad("must not hold a query or fragment ('?', '#')");
  if (!PATH_CHARS.test(basePath)) throw bad('holds characters a URI path does not allow: percent-encode them (RFC 3986 §3.3)');
  for (const segment of basePath.slice(1).split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw bad("must not hold empty, '.' or '..' segments");
  }
  return basePath;
}

/**
 * The part of the raw request `path` after `basePath` (`'/'` for the base itself), or undefined
 * when the request is outside it. Segment-wise and as sent: `/api` covers `/api`, `/api/` and
 * `/api/x`, not `/apix`.
 */
export function pathUnderBase(path: string, basePath: string): string | undefined {
  if (!path.startsWith(basePath)) return undefined;
  if (path.length === basePath.length) return '/';
  return path.charCodeAt(basePath.length) === 47 /* '/' */ ? path.slice(basePath.length) : undefined;
}

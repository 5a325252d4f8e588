/**
 * Media types (RFC 9110 §8.3.1) and `Accept` parsing (§12.5.1); choosing between them is
 * `negotiation.ts`. Hot path: parse results are cached and frozen so they can be shared between
 * requests.
 */

/** A parsed media type or media range. Instances returned by this module are frozen. */
export interface MediaType {
  /** Lower-case top-level type, `*` for a wildcard. */
  readonly type: string;
  /** Lower-case subtype, `*` allowed; a structured suffix stays part of it (`vnd.api+json`). */
  readonly subtype: string;
  /** `${type}/${subtype}`. */
  readonly essence: string;
  /** Lower-case names, unquoted values; never contains `q` / `qs`. */
  readonly params: Readonly<Record<string, string>>;
  /** Client weight from `Accept` (0..1), or server weight `qs` from `@Produces` (≥ 0); default 1. */
  readonly q: number;
}

/** @internal The shared empty parameter set (negotiation tests it by identity). */
export const EMPTY_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

// Fixed property order: every MediaType shares one V8 hidden class.
/** @internal A frozen media type. */
export function make(type: string, subtype: string, params: Readonly<Record<string, string>>, q: number): MediaType {
  return Object.freeze({ type, subtype, essence: `${type}/${subtype}`, params, q });
}

/** `*\/*` */
export const WILDCARD: MediaType = make('*', '*', EMPTY_PARAMS, 1);
/** `application/json` */
export const APPLICATION_JSON: MediaType = make('application', 'json', EMPTY_PARAMS, 1);
/** `application/xml` */
export const APPLICATION_XML: MediaType = make('application', 'xml', EMPTY_PARAMS, 1);
/** `application/octet-stream`: the JAX-RS answer when only a wildcard was negotiated (§3.8 step 9). */
export const APPLICATION_OCTET_STREAM: MediaType = make('application', 'octet-stream', EMPTY_PARAMS, 1);
/** `application/x-www-form-urlencoded` */
export const APPLICATION_FORM_URLENCODED: MediaType = make('application', 'x-www-form-urlencoded', EMPTY_PARAMS, 1);
/** `multipart/form-data` */
export const MULTIPART_FORM_DATA: MediaType = make('multipart', 'form-data', EMPTY_PARAMS, 1);
/** `text/plain` */
export const TEXT_PLAIN: MediaType = make('text', 'plain', EMPTY_PARAMS, 1);

/** @internal What a missing, empty or wholly unparsable `Accept` means: anything (RFC 9110 §12.5.1). */
export const ACCEPT_ANY: readonly MediaType[] = Object.freeze([WILDCARD]);

/** Cache size per header kind; FIFO eviction keeps memory bounded under hostile header variety. */
export const MEDIA_TYPE_CACHE_SIZE = 256;
/** Longer header values are parsed but not cached (real ones are < 300 chars). */
const MAX_CACHED_LENGTH = 1024;
/** Accept entries beyond this many are ignored: bounds negotiate's O(|A|²) worst case. */
export const MAX_ACCEPT_ENTRIES = 64;

// ---- scanner (RFC 9110 §5.6.2 token, §5.6.4 quoted-string) ----------------------------------

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;
// RFC 9110 qvalue, plus a leading-dot form (`q=.2`) that old Java clients still send.
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?|\.\d{1,3})$/;
const QSVALUE = /^(?:\d{1,4}(?:\.\d{0,3})?|\.\d{1,3})$/;

// Module-level cursor: the parser is synchronous, so one shared position avoids returning tuples.
let pos = 0;

function skipOws(s: string): void {
  let c = s.charCodeAt(pos);
  while (c === 32 || c === 9) c = s.charCodeAt(++pos);
}

function token(s: string): string {
  const start = pos;
  let c = s.charCodeAt(pos);
  while (c < 128 && TCHAR[c] === 1) c = s.charCodeAt(++pos);
  return s.slice(start, pos);
}

/** Reads token / quoted-string; undefined when neither (or an unterminated quote). */
function paramValue(s: string): string | undefined {
  if (s.charCodeAt(pos) !== 34) {
    const t = token(s);
    return t.length === 0 ? undefined : t;
  }
  let out = '';
  let chunk = ++pos;
  for (; pos < s.length; pos++) {
    const c = s.charCodeAt(pos);
    if (c === 34) {
      out += s.slice(chunk, pos++);
      return out;
    }
    if (c === 92) {
      // quoted-pair: keep the escaped character, drop the backslash
      out += s.slice(chunk, pos++);
      chunk = pos;
    }
  }
  return undefined;
}

/**
 * Parses one media type at `pos`, leaving `pos` after its parameters. In `Accept` (`inAccept`)
 * `q` is the weight, a bare `*` means `*\/*`, and parameters after `q` are accept-ext (ignored);
 * elsewhere `q` or `qs` is the weight.
 */
function parseAt(s: string, inAccept: boolean): MediaType | undefined {
  skipOws(s);
  const type = token(s).toLowerCase();
  if (type.length === 0) return undefined;
  let subtype: string;
  if (s.charCodeAt(pos) === 47) {
    pos++;
    subtype = token(s).toLowerCase();
    if (subtype.length === 0 || (type === '*' && subtype !== '*')) return undefined;
  } else if (inAccept && type === '*') {
    subtype = '*'; // bare `*` (HttpURLConnection's default Accept) means */*
  } else {
    return undefined;
  }
  let params: Record<string, string> | undefined;
  let q = 1;
  let afterQ = false;
  for (;;) {
    skipOws(s);
    if (s.charCodeAt(pos) !== 59) break; // ';'
    pos++;
    skipOws(s);
    const c = s.charCodeAt(pos);
    if (c === 59 || c === 44 || pos >= s.length) continue; // empty parameter is allowed
    const name = token(s).toLowerCase();
    if (name.length === 0) return undefined;
    skipOws(s); // lenient: RFC forbids whitespace around '=', real clients send it anyway
    if (s.charCodeAt(pos) !== 61) return undefined;
    pos++;
    skipOws(s);
    const value = paramValue(s);
    if (value === undefined) return undefined;
    if (afterQ) continue;
    if (name === 'q' || (!inAccept && name === 'qs')) {
      if (!(inAccept ? QVALUE : QSVALUE).test(value)) return undefined;
      q = Number(value);
      afterQ = inAccept;
    } else if (name !== '__proto__') {
      (params ??= {})[name] = value;
    }
  }
  return make(type, subtype, params === undefined ? EMPTY_PARAMS : Object.freeze(params), q);
}

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (key.length > MAX_CACHED_LENGTH) return value;
  if (cache.size >= MEDIA_TYPE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

const typeCache = new Map<string, MediaType | undefined>();
const acceptCache = new Map<string, readonly MediaType[]>();
/**
 * The last `Content-Type` value parsed and its result. Header values are fresh strings on every
 * request, and a Map lookup hashes the whole string first; clients of one server mostly send the
 * same value, and comparing it with the last one (a length check, then its characters) is a
 * fraction of that (issue 27's profile: about 300 instructions per request). Results are frozen
 * and shared, so answering the last one is answering what the cache would. (Not `lastValueMemo`:
 * the exported function keeps its declaration.)
 */
let lastType: string | undefined;
let lastTypeResult: MediaType | undefined;

/**
 * Parses a media type such as a `Content-Type` value or a `@Produces` entry.
 * `q` and `qs` parameters become {@link MediaType.q}; `qs` may exceed 1 (Jersey allows it).
 * @returns undefined when the value is not `token/token *(; token=token|quoted-string)`.
 * @example parseMediaType('Application/JSON; charset="utf-8"') // { essence: 'application/json', params: { charset: 'utf-8' }, ... }
 */
export function parseMediaType(value: string): MediaType | undefined {
  if (value === lastType) return lastTypeResult;
  let m = typeCache.get(value);
  if (m === undefined && !typeCache.has(value)) {
    pos = 0;
    m = parseAt(value, false);
    if (m !== undefined) {
      skipOws(value);
      if (pos !== value.length) m = undefined;
    }
    remember(typeCache, value, m);
  }
  // As lastValueMemo (util/memo.ts): a long odd value neither stays in memory nor evicts the common one.
  if (value.length <= MAX_CACHED_LENGTH) {
    lastType = value;
    lastTypeResult = m;
  }
  return m;
}

function byPreference(a: MediaType, b: MediaType): number {
  if (a.q !== b.q) return a.q > b.q ? -1 : 1;
  const s = specificity(b) - specificity(a);
  return s !== 0 ? s : paramCount(b) - paramCount(a);
}

/**
 * Parses an `Accept` header into media ranges, most preferred first: q desc, then specificity
 * desc, then parameter count desc (stable otherwise). Entries with q=0 are kept: they exclude.
 * Invalid entries are skipped; a missing header, or one with no valid entry, means `*\/*`
 * (RFC 9110 §12.5.1 lets a server disregard a malformed field). The result is cached and frozen.
 */
export function parseAccept(header: string | undefined): readonly MediaType[] {
  if (header === undefined) return ACCEPT_ANY;
  const hit = acceptCache.get(header);
  if (hit !== undefined) return hit;
  const list: MediaType[] = [];
  pos = 0;
  while (pos < header.length && list.length < MAX_ACCEPT_ENTRIES) {
    const m = parseAt(header, true);
    skipOws(header);
    if (m !== undefined && (pos >= header.length || header.charCodeAt(pos) === 44)) list.push(m);
    else skipToComma(header);
    pos++; // past ','
  }
  list.sort(byPreference);
  return remember(acceptCache, header, list.length === 0 ? ACCEPT_ANY : Object.freeze(list));
}

/** Skips a broken entry up to the next ',' that is not inside a quoted-string. */
function skipToComma(s: string): void {
  let quoted = false;
  for (; pos < s.length; pos++) {
    const c = s.charCodeAt(pos);
    if (quoted && c === 92) pos++;
    else if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) return;
  }
}

/** Formats as `type/subtype; name=value` (q omitted); values that are not tokens are quoted. */
export function mediaTypeString(m: MediaType): string {
  if (m.params === EMPTY_PARAMS) return m.essence;
  let out = m.essence;
  for (const name in m.params) {
    const v = m.params[name] as string;
    out += `; ${name}=${isToken(v) ? v : `"${v.replace(/["\\]/g, '\\$&')}"`}`;
  }
  return out;
}

function isToken(v: string): boolean {
  if (v.length === 0) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}

/** 0 for `*\/*`, 1 for `type/*`, 2 for a concrete type. */
export function specificity(m: MediaType): number {
  return m.type === '*' ? 0 : m.subtype === '*' ? 1 : 2;
}

/** @internal Number of parameters (the Accept sort and negotiation rank by it). */
export function paramCount(m: MediaType): number {
  if (m.params === EMPTY_PARAMS) return 0;
  let n = 0;
  for (const _ in m.params) n++;
  return n;
}

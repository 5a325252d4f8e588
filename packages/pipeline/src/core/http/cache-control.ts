/**
 * The `Cache-Control` response header (Jakarta REST 3.1 §3.5.1 `CacheControl`; RFC 9111 §5.2):
 * build it from options, format it, parse it back.
 */

/** `token` of RFC 9110 §5.6.2. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters a quoted-string may carry (RFC 9110 §5.6.4): HTAB, SP, VCHAR, obs-text. */
const QUOTABLE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** `delta-seconds` of RFC 9111 §1.2.2. */
const DELTA_SECONDS = /^[0-9]+$/;

/** The directives of {@link CacheControl}, each optional (RFC 9111 §5.2.2, RFC 8246, RFC 5861). */
export interface CacheControlOptions {
  /** `max-age`: fresh for this many seconds (§5.2.2.1). */
  readonly maxAge?: number;
  /** `s-maxage`: `max-age` for shared caches only (§5.2.2.10). */
  readonly sMaxAge?: number;
  /** `no-cache`: revalidate before every use (§5.2.2.4); with field names, only those fields. */
  readonly noCache?: boolean | readonly string[];
  /** `no-store`: do not store at all (§5.2.2.5). */
  readonly noStore?: boolean;
  /** `no-transform`: intermediaries must not change the content (§5.2.2.6). */
  readonly noTransform?: boolean;
  /** `must-revalidate`: never serve stale (§5.2.2.2). */
  readonly mustRevalidate?: boolean;
  /** `proxy-revalidate`: `must-revalidate` for shared caches (§5.2.2.8). */
  readonly proxyRevalidate?: boolean;
  /** `must-understand`: store only if the status code's caching rules are known (§5.2.2.3). */
  readonly mustUnderstand?: boolean;
  /** `private`: only a private cache may store it (§5.2.2.7); with field names, only those fields are private. */
  readonly private?: boolean | readonly string[];
  /** `public`: any cache may store it, even when it would not by default (§5.2.2.9). */
  readonly public?: boolean;
  /** `immutable`: will not change while fresh (RFC 8246). */
  readonly immutable?: boolean;
  /** `stale-while-revalidate`: may be served stale this many seconds while revalidating (RFC 5861 §3). */
  readonly staleWhileRevalidate?: number;
  /** `stale-if-error`: may be served stale this many seconds when revalidation fails (RFC 5861 §4). */
  readonly staleIfError?: number;
  /**
   * Extension directives (RFC 9111 §5.2.3), by name: `true` for a bare directive, a string for its
   * argument (sent as a token when it is one, else as a quoted-string).
   */
  readonly extensions?: Readonly<Record<string, string | true>>;
}

/** Directive name → option name, for the directives with an argument of delta-seconds. */
const AGES = {
  'max-age': 'maxAge',
  's-maxage': 'sMaxAge',
  'stale-while-revalidate': 'staleWhileRevalidate',
  'stale-if-error': 'staleIfError',
} as const;
/** Directive name → option name, for the flag directives. */
const FLAGS = {
  public: 'public',
  'no-store': 'noStore',
  'no-transform': 'noTransform',
  'must-revalidate': 'mustRevalidate',
  'proxy-revalidate': 'proxyRevalidate',
  'must-understand': 'mustUnderstand',
  immutable: 'immutable',
} as const;
/** Directive name → option name, for the flags that may list field names. */
const FIELD_LISTS = { 'no-cache': 'noCache', private: 'private' } as const;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A `Cache-Control` response header value (JAX-RS `CacheControl`). Immutable: build it from
 * options, derive variants with {@link CacheControl.with}, pass it to `ResponseBuilder.cacheControl`.
 * Invalid values throw a TypeError naming the directive at construction.
 *
 * @example
 * const cc = new CacheControl({ maxAge: 60, private: true });
 * cc.toString();                                        // 'private, max-age=60'
 * cc.with({ mustRevalidate: true }).toString();         // 'private, must-revalidate, max-age=60'
 * CacheControl.parse('no-cache="Set-Cookie", max-age=0').noCache; // ['Set-Cookie']
 * return Response.ok(doc).cacheControl(cc).build();
 */
export class CacheControl implements CacheControlOptions {
  readonly maxAge?: number;
  readonly sMaxAge?: number;
  /** `true`, or the field names; absent when not set. */
  readonly noCache?: true | readonly string[];
  readonly noStore?: boolean;
  readonly noTransform?: boolean;
  readonly mustRevalidate?: boolean;
  readonly proxyRevalidate?: boolean;
  readonly mustUnderstand?: boolean;
  /** `true`, or the field names; absent when not set. */
  readonly private?: true | readonly string[];
  readonly public?: boolean;
  readonly immutable?: boolean;
  readonly staleWhileRevalidate?: number;
  readonly staleIfError?: number;
  readonly extensions?: Readonly<Record<string, string | true>>;

  constructor(options: CacheControlOptions = {}) {
    const self = this as Mutable<CacheControl>;
    for (const [directive, key] of Object.entries(AGES)) {
      const v = options[key];
      if (v === undefined) continue;
      if (!Number.isSafeInteger(v) || v < 0) {
        throw new TypeError(`CacheControl: ${directive} must be a non-negative integer of seconds (RFC 9111 §1.2.2), got ${String(v)}`);
      }
      self[key] = v;
    }
    for (const [directive, key] of Object.entries(FLAGS)) {
      const v = options[key];
      if (v === undefined || v === false) continue;
      if (v !== true) throw new TypeError(`CacheControl: ${directive} must be a boolean, got ${String(v)}`);
      self[key] = true;
    }
    for (const [directive, key] of Object.entries(FIELD_LISTS)) {
      const v = options[key];
      if (v === undefined || v === false) continue;
      self[key] = v === true ? true : fieldNames(directive, v);
    }
    if (options.extensions !== undefined) self.extensions = extensionsOf(options.extensions);
    Object.freeze(this);
  }

  /** A copy with `options` applied on top (a directive set to `undefined` or `false` is removed). */
  with(options: CacheControlOptions): CacheControl {
    return new CacheControl({ ...this.options(), ...options });
  }

  /** The directives as an options object (what the constructor takes). */
  options(): CacheControlOptions {
    const out: Mutable<CacheControlOptions> = {};
    for (const key of Object.keys(this) as (keyof CacheControlOptions)[]) {
      (out as Record<string, unknown>)[key] = this[key];
    }
    return out;
  }

  /**
   * The header value, an empty string when there are no directives. Order: `public`, `private`,
   * `no-cache`, the other flags, the ages, the extensions.
   */
  toString(): string {
    const parts: string[] = [];
    if (this.public === true) parts.push('public');
    // RFC 9111 §5.2.2.4 and §5.2.2.7: senders use the quoted-string form for the field-name list.
    if (this.private !== undefined) parts.push(this.private === true ? 'private' : `private="${this.private.join(', ')}"`);
    if (this.noCache !== undefined) parts.push(this.noCache === true ? 'no-cache' : `no-cache="${this.noCache.join(', ')}"`);
    for (const [directive, key] of Object.entries(FLAGS)) {
      if (key !== 'public' && this[key] === true) parts.push(directive);
    }
    for (const [directive, key] of Object.entries(AGES)) {
      const v = this[key];
      if (v !== undefined) parts.push(`${directive}=${v}`);
    }
    if (this.extensions !== undefined) {
      for (const [name, v] of Object.entries(this.extensions)) {
        parts.push(v === true ? name : TOKEN.test(v) ? `${name}=${v}` : `${name}="${v.replace(/["\\]/g, '\\$&')}"`);
      }
    }
    return parts.join(', ');
  }

  /**
   * Parses a `Cache-Control` value (RFC 9111 §5.2). Directive names are case-insensitive; an
   * argument may be a token or a quoted-string (a cache must accept both, §5.2); empty list
   * members are skipped (RFC 9110 §5.6.1). Unknown directives become {@link extensions}.
   * Throws a TypeError naming the directive for a malformed one, a bad argument, or a repeated one.
   */
  static parse(text: string): CacheControl {
    const options: Mutable<CacheControlOptions> = {};
    const extensions: Record<string, string | true> = {};
    const seen = new Set<string>();
    for (const [name, arg] of directives(text)) {
      if (seen.has(name)) throw new TypeError(`CacheControl.parse: directive ${name} appears more than once in ${JSON.stringify(text)}`);
      seen.add(name);
      if (name in AGES) {
        if (arg === undefined || !DELTA_SECONDS.test(arg)) {
          throw new TypeError(`CacheControl.parse: ${name} needs a non-negative integer of seconds, got ${JSON.stringify(arg ?? '')}`);
        }
        options[AGES[name as keyof typeof AGES]] = Number(arg);
      } else if (name in FLAGS) {
        if (arg !== undefined) throw new TypeError(`CacheControl.parse: ${name} takes no argument, got ${JSON.stringify(arg)}`);
        options[FLAGS[name as keyof typeof FLAGS]] = true;
      } else if (name in FIELD_LISTS) {
        const fields =
          arg === undefined
            ? true
            : arg
                .split(',')
                .map((f) => f.trim())
                .filter((f) => f !== '');
        options[FIELD_LISTS[name as keyof typeof FIELD_LISTS]] = fields;
      } else {
        extensions[name] = arg ?? true;
      }
    }
    if (Object.keys(extensions).length > 0) options.extensions = extensions;
    return new CacheControl(options);
  }
}

/** Validates a field-name list (RFC 9110 §5.1: field-name = token). */
function fieldNames(directive: string, names: readonly string[]): readonly string[] {
  if (!Array.isArray(names) || names.length === 0) {
    throw new TypeError(`CacheControl: ${directive} takes true or a non-empty list of field names`);
  }
  for (const n of names) {
    if (typeof n !== 'string' || !TOKEN.test(n))
      throw new TypeError(`CacheControl: ${directive} field name ${JSON.stringify(n)} is not a token`);
  }
  return Object.freeze([...names]);
}

/** Validates extension directives: token names that are not the standard ones, quotable values. */
function extensionsOf(ext: Readonly<Record<string, string | true>>): Readonly<Record<string, string | true>> {
  const out: Record<string, string | true> = {};
  for (const [raw, v] of Object.entries(ext)) {
    const name = raw.toLowerCase();
    if (!TOKEN.test(name)) throw new TypeError(`CacheControl: extension directive name ${JSON.stringify(raw)} is not a token`);
    if (name in AGES || name in FLAGS || name in FIELD_LISTS) {
      throw new TypeError(`CacheControl: ${name} is a standard directive; set it with its own option, not as an extension`);
    }
    if (v !== true && (typeof v !== 'string' || !QUOTABLE.test(v))) {
      throw new TypeError(
        `CacheControl: extension directive ${name} needs true or a string without control characters, got ${JSON.stringify(v)}`,
      );
    }
    out[name] = v;
  }
  return Object.freeze(out);
}

/**
 * The `name[=argument]` members of a Cache-Control list, names lower-cased, quoted arguments
 * unquoted (RFC 9110 §5.6.4). Commas inside a quoted-string do not split.
 */
function* directives(text: string): Generator<[string, string | undefined]> {
  let i = 0;
  const n = text.length;
  const skipSpace = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  while (i < n) {
    skipSpace();
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (i >= n) break;
    const start = i;
    while (i < n && text[i] !== '=' && text[i] !== ',' && text[i] !== ' ' && text[i] !== '\t') i++;
    const name = text.slice(start, i);
    if (!TOKEN.test(name))
      throw new TypeError(`CacheControl.parse: ${JSON.stringify(name)} is not a directive name in ${JSON.stringify(text)}`);
    skipSpace();
    let arg: string | undefined;
    if (text[i] === '=') {
      i++;
      skipSpace();
      if (text[i] === '"') {
        let value = '';
        i++;
        for (;;) {
          if (i >= n) throw new TypeError(`CacheControl.parse: unterminated quoted argument of ${name.toLowerCase()}`);
          const c = text[i++]!;
          if (c === '"') break;
          if (c === '\\' && i < n) value += text[i++];
          else value += c;
        }
        if (!QUOTABLE.test(value)) throw new TypeError(`CacheControl.parse: control characters in the argument of ${name.toLowerCase()}`);
        arg = value;
      } else {
        const s = i;
        while (i < n && text[i] !== ',' && text[i] !== ' ' && text[i] !== '\t') i++;
        arg = text.slice(s, i);
        if (!TOKEN.test(arg))
          throw new TypeError(`CacheControl.parse: ${JSON.stringify(arg)} is not a valid argument of ${name.toLowerCase()}`);
      }
      skipSpace();
    }
    if (i < n && text[i] !== ',')
      throw new TypeError(`CacheControl.parse: expected ',' after ${name.toLowerCase()} in ${JSON.stringify(text)}`);
    yield [name.toLowerCase(), arg];
  }
}

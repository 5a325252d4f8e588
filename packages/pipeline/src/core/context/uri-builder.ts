/**
 * `UriBuilder` (Jakarta REST 3.1 §5.3.2, `jakarta.ws.rs.core.UriBuilder`): URIs assembled from
 * components and URI templates in the `@Path` syntax (`{name}`, `{name: regex}`, §3.7.2).
 *
 * Encoding follows RFC 3986 component by component. Literal text given to the builder (a template,
 * a path, a query parameter) is encoded "contextually": characters not allowed in the component
 * are percent-encoded, valid `%XX` escapes are kept. Values bound to template variables by
 * {@link UriBuilder.build} / {@link UriBuilder.buildFromMap} are always encoded whole (`%` too),
 * so a path value `a/b c` becomes `a%2Fb%20c`: one segment, never two.
 */
import type { Constructor } from './contracts.js';

/** The parts of a URI a template variable can appear in; each has its own set of safe characters. */
const enum Part {
  UserInfo,
  Host,
  Path,
  /** One path segment: `/` encoded too. */
  Segment,
  /** A query name or value from `queryParam`: `& = + #` encoded too. */
  QueryParam,
  /** A query name or value parsed from a URI: `+` and `=` (in values) stay as written. */
  QueryParsed,
  Fragment,
}

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
const SUB_DELIMS = "!$&'()*+,;=";

function table(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

// RFC 3986 §3.2.1 userinfo, §3.2.2 reg-name, §3.3 pchar (+ '/' for paths), §3.4 query, §3.5 fragment.
const SAFE: Record<Part, Uint8Array> = {
  [Part.UserInfo]: table(UNRESERVED + SUB_DELIMS + ':'),
  [Part.Host]: table(UNRESERVED + SUB_DELIMS),
  [Part.Path]: table(UNRESERVED + SUB_DELIMS + ':@/'),
  [Part.Segment]: table(UNRESERVED + SUB_DELIMS + ':@'),
  // `&` and `=` delimit parameters, `#` the fragment, and `+` reads as a space to form decoders.
  [Part.QueryParam]: table(UNRESERVED + "!$'()*,;:@/?"),
  [Part.QueryParsed]: table(UNRESERVED + "!$'()*+,;=:@/?"),
  [Part.Fragment]: table(UNRESERVED + SUB_DELIMS + ':@/?'),
};

const HEX_DIGIT = /^[0-9A-Fa-f]$/;
const HEX = '0123456789ABCDEF';

/**
 * Percent-encodes what `part` does not allow (UTF-8, RFC 3986 §2.5). With `keepEscapes`, a valid
 * `%XX` stays as it is (contextual encoding of literal text); without, `%` is encoded too.
 */
function encode(text: string, part: Part, keepEscapes: boolean): string {
  const safe = SAFE[part];
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && safe[c] === 1) continue;
    if (c === 37 /* % */ && keepEscapes && HEX_DIGIT.test(text[i + 1] ?? '') && HEX_DIGIT.test(text[i + 2] ?? '')) {
      i += 2;
      continue;
    }
    out += text.slice(start, i);
    if (c < 128) {
      out += '%' + HEX[c >> 4]! + HEX[c & 15]!;
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (cp >= 0xd800 && cp <= 0xdfff) {
        throw new TypeError(`UriBuilder: ${JSON.stringify(text)} holds a lone surrogate, which has no UTF-8 encoding`);
      }
      out += encodeURIComponent(ch);
      i += ch.length - 1;
    }
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** A template variable: `{name}` or `{name: regex}`. */
interface Variable {
  readonly name: string;
  /** The regex text after `:`, when given. */
  readonly regex: string | undefined;
}

/** Literal text (already encoded for its part) or a variable. */
type Token = string | Variable;

/**
 * Splits a template into literals and variables, as `@Path` does: a variable runs from `{` to the
 * matching `}` (braces inside a regex must balance, `\` escapes one character).
 */
function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  let lit = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '}') throw new TypeError(`UriBuilder: invalid URI template "${template}": unbalanced '}'`);
    if (c !== '{') {
      lit += c;
      continue;
    }
    const end = closingBrace(template, i);
    const body = template.slice(i + 1, end);
    const colon = body.indexOf(':');
    const name = (colon < 0 ? body : body.slice(0, colon)).trim();
    const regex = colon < 0 ? undefined : body.slice(colon + 1).trim();
    if (!NAME.test(name) || name === '__proto__') {
      throw new TypeError(`UriBuilder: invalid URI template "${template}": bad variable name "${name}" (use {name} or {name: regex})`);
    }
    if (regex === '') throw new TypeError(`UriBuilder: invalid URI template "${template}": empty regex for "${name}"`);
    if (regex !== undefined) compiled(regex, template);
    if (lit !== '') tokens.push(lit);
    lit = '';
    tokens.push({ name, regex });
    i = end;
  }
  if (lit !== '') tokens.push(lit);
  return tokens;
}

/** Index of the `}` closing the `{` at `open`. */
function closingBrace(template: string, open: number): number {
  let depth = 1;
  for (let j = open + 1; j < template.length; j++) {
    const d = template[j];
    if (d === '\\') j++;
    else if (d === '{') depth++;
    else if (d === '}' && --depth === 0) return j;
  }
  throw new TypeError(`UriBuilder: invalid URI template "${template}": unbalanced '{'`);
}

const regexCache = new Map<string, RegExp>();

/** The anchored regex of a `{name: regex}` variable (a bad regex throws, naming the template). */
function compiled(regex: string, template: string): RegExp {
  let re = regexCache.get(regex);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${regex})$`);
    } catch (e) {
      throw new TypeError(`UriBuilder: invalid URI template "${template}": ${(e as Error).message}`);
    }
    if (regexCache.size >= 256) regexCache.clear();
    regexCache.set(regex, re);
  }
  return re;
}

/** `text` in template form: literals encoded for `part` (escapes kept), variables as written. */
function templateText(text: string, part: Part, templates: boolean): string {
  if (!templates) return encode(text, part, true);
  let out = '';
  for (const t of tokenize(text)) out += typeof t === 'string' ? encode(t, part, true) : variableText(t);
  return out;
}

function variableText(v: Variable): string {
  return v.regex === undefined ? `{${v.name}}` : `{${v.name}: ${v.regex}}`;
}

/** Index of the first of `chars` in `s` from `from` outside template braces, or `s.length`. */
function indexOutside(s: string, chars: string, from: number, templates: boolean): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (templates && c === '{') i = closingBrace(s, i);
    else if (chars.includes(c)) return i;
  }
  return s.length;
}

/** Index of the last `char` in `s` outside template braces, or -1. */
function lastIndexOutside(s: string, char: string, templates: boolean): number {
  let last = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (templates && c === '{') i = closingBrace(s, i);
    else if (c === char) last = i;
  }
  return last;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** A query parameter in template form; `value` undefined for a bare name (`?flag`). */
interface QueryEntry {
  readonly name: string;
  readonly value: string | undefined;
}

/** Where `fromResource`, `fromMethod` and `path(Class, ...)` find `@Path` values (see {@link setResourcePathLookup}). */
export type ResourcePathLookup = (resource: Constructor, method: string | undefined, caller: string) => string;

let resourcePathLookup: ResourcePathLookup | undefined;

/**
 * Installs how resource classes' `@Path` values are found. Decorator metadata lives in a layer
 * above this one (src/core/model), which installs the lookup when it loads; the public entry point
 * loads it before handing out `UriBuilder`.
 * @internal
 */
export function setResourcePathLookup(lookup: ResourcePathLookup): void {
  resourcePathLookup = lookup;
}

/** The `@Path` of a resource class (or of one of its methods) in template form, with a leading '/'. */
function resourcePath(resource: Constructor, method: string | undefined, caller: string): string {
  if (typeof resource !== 'function') throw new TypeError(`UriBuilder.${caller}: expected a resource class, got ${typeof resource}`);
  if (resourcePathLookup === undefined) {
    throw new Error(`UriBuilder.${caller}: resource metadata is not loaded; import UriBuilder from '@jaxrs-node/pipeline'`);
  }
  const path = resourcePathLookup(resource, method, caller);
  // A resource's paths are relative to the application: one leading '/', as the router reads them.
  return templateText(path.startsWith('/') ? path : '/' + path, Part.Path, true);
}

/**
 * Builds URIs from components and URI templates (Jakarta REST 3.1 `UriBuilder`). Template
 * variables use the `@Path` syntax, `{name}` or `{name: regex}`, in the host, the path, query
 * names and values and the fragment. Builders are mutable: every method changes this builder and
 * returns it; {@link clone} copies one.
 *
 * @example
 * UriBuilder.fromUri('https://api.example.com').path('/users/{id}').queryParam('fields', 'name,email').build(42);
 * // 'https://api.example.com/users/42?fields=name,email'
 * UriBuilder.fromResource(UserResource).path(UserResource, 'get').build('a/b'); // '/users/a%2Fb'
 * uriInfo.baseUriBuilder().path('users').segment(name).build(); // 'http://host/api/users/Ada%20L'
 */
export class UriBuilder {
  private _scheme: string | undefined = undefined;
  private _userInfo: string | undefined = undefined;
  private _host: string | undefined = undefined;
  private _port: number | undefined = undefined;
  /** Template form: literals encoded, variables as written. */
  private _path = '';
  private _query: QueryEntry[] = [];
  private _fragment: string | undefined = undefined;

  /** An empty builder (a relative, empty URI until something is set). */
  constructor() {}

  /**
   * A builder from a URI or URI template, absolute (`https://h:8080/a?b=c#d`) or relative
   * (`users/7`, `/users/{id}`). Illegal characters in it are encoded, `%XX` escapes kept.
   * @throws TypeError for a malformed template or port.
   */
  static fromUri(uri: string | URL): UriBuilder {
    return new UriBuilder().parse(typeof uri === 'string' ? uri : uri.href, true);
  }

  /**
   * A builder from a URI template in the `@Path` syntax, e.g. `/users/{id: [0-9]+}/files` or
   * `http://{host}/a?q={q}` (same as {@link fromUri}, named for what it takes).
   */
  static fromTemplate(template: string): UriBuilder {
    return UriBuilder.fromUri(template);
  }

  /** A builder whose path is `path` (a template; nothing else is parsed out of it). */
  static fromPath(path: string): UriBuilder {
    return new UriBuilder().path(path);
  }

  /**
   * A builder whose path is the class-level `@Path` of a resource class (inherited ones included).
   * @throws TypeError when the class has no `@Path`.
   * @example UriBuilder.fromResource(UserResource).path(UserResource, 'get').build(7) // '/users/7'
   */
  static fromResource(resource: Constructor): UriBuilder {
    return new UriBuilder().appendPath(resourcePath(resource, undefined, 'fromResource()'));
  }

  /**
   * A builder whose path is the `@Path` of one method of a resource class (declared there or
   * inherited), without the class's own `@Path`, as in Jakarta REST; `fromResource(C).path(C, m)`
   * gives the whole path.
   * @throws TypeError when the class has no such method, or the method no `@Path`.
   */
  static fromMethod(resource: Constructor, method: string): UriBuilder {
    return new UriBuilder().appendPath(resourcePath(resource, method, 'fromMethod()'));
  }

  /**
   * A request's URI, taken literally (no templates): `authority` a valid Host value, `rawPath`
   * and `rawQuery` (without `?`) as received. Used by `UriInfo`.
   * @internal
   */
  static fromRequest(scheme: string, authority: string, rawPath: string, rawQuery = ''): UriBuilder {
    const b = new UriBuilder().parse(`${scheme}://${authority}`, false);
    b._path = encode(rawPath, Part.Path, true);
    if (rawQuery !== '') b._query = parseQuery(rawQuery, false);
    return b;
  }

  /** A copy of this builder. */
  clone(): UriBuilder {
    const b = new UriBuilder();
    b._scheme = this._scheme;
    b._userInfo = this._userInfo;
    b._host = this._host;
    b._port = this._port;
    b._path = this._path;
    b._query = this._query.slice();
    b._fragment = this._fragment;
    return b;
  }

  /** Sets the scheme (`https`); `undefined` removes it. */
  scheme(scheme: string | undefined): this {
    if (scheme !== undefined && !SCHEME.test(scheme)) {
      throw new TypeError(`UriBuilder.scheme(): "${scheme}" is not a URI scheme (RFC 3986 §3.1: a letter, then letters, digits, + - .)`);
    }
    this._scheme = scheme?.toLowerCase();
    return this;
  }

  /** Sets the user information (`user:pass`, encoded as needed); `undefined` removes it. */
  userInfo(userInfo: string | undefined): this {
    this._userInfo = userInfo === undefined ? undefined : templateText(userInfo, Part.UserInfo, true);
    return this;
  }

  /** Sets the host (a name, an IPv4 address, `[IPv6]`, or a template); `undefined` removes it. */
  host(host: string | undefined): this {
    if (host === undefined) this._host = undefined;
    else if (host.startsWith('[')) {
      if (!/^\[[0-9A-Za-z:.%_~-]+\]$/.test(host)) throw new TypeError(`UriBuilder.host(): "${host}" is not an IP literal`);
      this._host = host;
    } else {
      if (host === '') throw new TypeError('UriBuilder.host(): the host is empty; pass undefined to remove it');
      this._host = templateText(host, Part.Host, true);
    }
    return this;
  }

  /** Sets the port (0-65535); `undefined` (or -1, as in Jakarta REST) removes it. */
  port(port: number | undefined): this {
    if (port === undefined || port === -1) this._port = undefined;
    else if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new TypeError(`UriBuilder.port(): ${String(port)} is not a port (an integer 0-65535, or undefined to remove it)`);
    } else this._port = port;
    return this;
  }

  /**
   * Appends a path (a template: `users/{id}`; `/` kept), joined to the current path with exactly
   * one `/`. `path(Resource)` appends the class's `@Path`, `path(Resource, 'method')` the
   * method's.
   */
  path(path: string): this;
  path(resource: Constructor, method?: string): this;
  path(pathOrResource: string | Constructor, method?: string): this {
    if (typeof pathOrResource === 'string') return this.appendPath(templateText(pathOrResource, Part.Path, true));
    return this.appendPath(resourcePath(pathOrResource, method, method === undefined ? 'path(Class)' : 'path(Class, method)'));
  }

  /** Replaces the whole path with `path` (a template); `undefined` or `''` removes it. */
  replacePath(path: string | undefined): this {
    this._path = path === undefined ? '' : templateText(path, Part.Path, true);
    return this;
  }

  /**
   * Appends each value as one path segment, encoded whole: `/` becomes `%2F`, `{` `}` are text
   * (not template variables), `%` is `%25`.
   * @example UriBuilder.fromPath('/files').segment('a/b', 'c d').build() // '/files/a%2Fb/c%20d'
   */
  segment(...segments: unknown[]): this {
    for (const s of segments) this.appendPath(encode(textOf(s, 'UriBuilder.segment(): a segment'), Part.Segment, false), true);
    return this;
  }

  /**
   * Adds `name=value` for each value (names and values are templates; `& = + #` and spaces are
   * encoded, `%XX` escapes kept).
   * @example UriBuilder.fromPath('/s').queryParam('q', 'a&b c').build() // '/s?q=a%26b%20c'
   */
  queryParam(name: string, ...values: unknown[]): this {
    if (values.length === 0) {
      throw new TypeError(`UriBuilder.queryParam('${name}'): no value; pass '' for an empty value`);
    }
    const n = templateText(name, Part.QueryParam, true);
    for (const v of values) {
      this._query.push({ name: n, value: templateText(textOf(v, `UriBuilder.queryParam('${name}'): a value`), Part.QueryParam, true) });
    }
    return this;
  }

  /** Removes every parameter called `name`, then adds `values` (none: only removes). */
  replaceQueryParam(name: string, ...values: unknown[]): this {
    const n = templateText(name, Part.QueryParam, true);
    this._query = this._query.filter((q) => q.name !== n);
    return values.length === 0 ? this : this.queryParam(name, ...values);
  }

  /** Replaces the whole query (`a=1&b=2`, without `?`); `undefined` or `''` removes it. */
  replaceQuery(query: string | undefined): this {
    this._query = query === undefined || query === '' ? [] : parseQuery(query, true);
    return this;
  }

  /** Sets the fragment (without `#`, a template); `undefined` removes it. */
  fragment(fragment: string | undefined): this {
    this._fragment = fragment === undefined ? undefined : templateText(fragment, Part.Fragment, true);
    return this;
  }

  /**
   * The URI with template variables bound, in order of first appearance, to `values` (each
   * encoded for its part; values beyond the variables are ignored).
   * @throws TypeError naming the variable when a value is missing (or null/undefined), or when an
   * encoded value does not match the variable's regex.
   * @example UriBuilder.fromTemplate('/users/{id}/files/{name}').build(7, 'a b.txt') // '/users/7/files/a%20b.txt'
   */
  build(...values: unknown[]): string {
    const positions = new Map<string, number>();
    return this.assemble((name) => {
      let i = positions.get(name);
      if (i === undefined) positions.set(name, (i = positions.size));
      return i < values.length ? values[i] : undefined;
    });
  }

  /**
   * The URI with template variables bound by name (each value encoded for its part).
   * @throws TypeError naming the variable when a value is missing, or does not match its regex.
   * @example UriBuilder.fromTemplate('/users/{id}').buildFromMap({ id: 7 }) // '/users/7'
   */
  buildFromMap(values: Readonly<Record<string, unknown>>): string {
    return this.assemble((name) => (Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined));
  }

  /** The template: the URI with its variables unbound (`/users/{id}`). */
  toTemplate(): string {
    return this.assemble(undefined);
  }

  /** Same as {@link toTemplate}: the URI itself when it has no variables. */
  toString(): string {
    return this.toTemplate();
  }

  private appendPath(path: string, asSegment = false): this {
    if (path === '' && !asSegment) return this;
    const cur = this._path;
    if (cur === '') this._path = asSegment ? '/' + path : path;
    else {
      const endSlash = cur.endsWith('/');
      const startSlash = path.startsWith('/');
      this._path = endSlash && startSlash ? cur + path.slice(1) : endSlash || startSlash ? cur + path : `${cur}/${path}`;
    }
    return this;
  }

  /** Reads a URI (reference) into this builder: RFC 3986 §3 components, split outside template braces. */
  private parse(uri: string, templates: boolean): this {
    let rest = uri;
    const colon = indexOutside(rest, ':/?#', 0, templates);
    if (colon < rest.length && rest[colon] === ':' && SCHEME.test(rest.slice(0, colon))) {
      this._scheme = rest.slice(0, colon).toLowerCase();
      rest = rest.slice(colon + 1);
    }
    if (rest.startsWith('//')) {
      const end = indexOutside(rest, '/?#', 2, templates);
      this.parseAuthority(rest.slice(2, end), uri, templates);
      rest = rest.slice(end);
    }
    const q = indexOutside(rest, '?#', 0, templates);
    this._path = templateText(rest.slice(0, q), Part.Path, templates);
    rest = rest.slice(q);
    if (rest.startsWith('?')) {
      const f = indexOutside(rest, '#', 1, templates);
      this._query = parseQuery(rest.slice(1, f), templates);
      rest = rest.slice(f);
    }
    if (rest.startsWith('#')) this._fragment = templateText(rest.slice(1), Part.Fragment, templates);
    return this;
  }

  private parseAuthority(authority: string, uri: string, templates: boolean): void {
    const at = lastIndexOutside(authority, '@', templates);
    if (at >= 0) this._userInfo = templateText(authority.slice(0, at), Part.UserInfo, templates);
    let hostPort = authority.slice(at + 1);
    let port: string | undefined;
    if (hostPort.startsWith('[')) {
      const close = hostPort.indexOf(']');
      if (close < 0) throw new TypeError(`UriBuilder: invalid URI "${uri}": unclosed IP literal`);
      if (close + 1 < hostPort.length) {
        if (hostPort[close + 1] !== ':') throw new TypeError(`UriBuilder: invalid URI "${uri}": text after the IP literal`);
        port = hostPort.slice(close + 2);
      }
      hostPort = hostPort.slice(0, close + 1);
      this._host = hostPort;
    } else {
      const c = lastIndexOutside(hostPort, ':', templates);
      if (c >= 0) {
        port = hostPort.slice(c + 1);
        hostPort = hostPort.slice(0, c);
      }
      this._host = templateText(hostPort, Part.Host, templates);
    }
    if (port !== undefined && port !== '') {
      if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new TypeError(`UriBuilder: invalid URI "${uri}": bad port "${port}"`);
      this._port = Number(port);
    }
  }

  /** The URI text; with `valueOf`, variables are bound to encoded values, without, left as written. */
  private assemble(valueOf: ((name: string) => unknown) | undefined): string {
    const fill = (text: string, part: Part): string => (valueOf === undefined ? text : bind(text, part, valueOf));
    let s = this._scheme === undefined ? '' : this._scheme + ':';
    const hasAuthority = this._host !== undefined || this._userInfo !== undefined || this._port !== undefined;
    if (hasAuthority) {
      s += '//';
      if (this._userInfo !== undefined) s += fill(this._userInfo, Part.UserInfo) + '@';
      if (this._host !== undefined) s += this._host.startsWith('[') ? this._host : fill(this._host, Part.Host);
      if (this._port !== undefined) s += ':' + String(this._port);
    }
    const path = fill(this._path, Part.Path);
    s += hasAuthority && path !== '' && !path.startsWith('/') ? '/' + path : path;
    if (this._query.length !== 0) {
      let q = '';
      for (const e of this._query) {
        // A parsed `+` or `=` (QueryParsed) is already part of the template text; values bound
        // into either kind are encoded with the stricter QueryParam set.
        q += (q === '' ? '' : '&') + fill(e.name, Part.QueryParam) + (e.value === undefined ? '' : '=' + fill(e.value, Part.QueryParam));
      }
      s += '?' + q;
    }
    if (this._fragment !== undefined) s += '#' + fill(this._fragment, Part.Fragment);
    return s;
  }
}

/**
 * A value as URI text: a string as it is, anything else through its own `toString()` (numbers,
 * bigints, `URL`s, id classes). `what` names it when it is null or undefined.
 */
function textOf(value: unknown, what: string): string {
  if (value === undefined || value === null) throw new TypeError(`${what} is ${String(value)}`);
  return typeof value === 'string' ? value : (value as { toString(): string }).toString();
}

/** `a=1&b&c=` into entries (template form). */
function parseQuery(query: string, templates: boolean): QueryEntry[] {
  const out: QueryEntry[] = [];
  let start = 0;
  while (start <= query.length) {
    const end = indexOutside(query, '&', start, templates);
    const pair = query.slice(start, end);
    if (pair !== '') {
      const eq = indexOutside(pair, '=', 0, templates);
      out.push({
        name: templateText(pair.slice(0, eq), Part.QueryParam, templates),
        value: eq === pair.length ? undefined : templateText(pair.slice(eq + 1), Part.QueryParsed, templates),
      });
    }
    start = end + 1;
  }
  return out;
}

/** Template-form `text` with each variable replaced by its value, encoded for `part`. */
function bind(text: string, part: Part, valueOf: (name: string) => unknown): string {
  if (!text.includes('{')) return text;
  let out = '';
  for (const t of tokenize(text)) {
    if (typeof t === 'string') {
      out += t;
      continue;
    }
    const raw = valueOf(t.name);
    if (raw === undefined || raw === null) {
      throw new TypeError(`UriBuilder.build(): no value for template variable "${t.name}"`);
    }
    const plain = textOf(raw, `UriBuilder.build(): the value of "${t.name}"`);
    const value = encode(plain, part === Part.Path ? Part.Segment : part, false);
    // The router matches `{name: regex}` against the encoded request path: so is the value here.
    if (t.regex !== undefined && !compiled(t.regex, text).test(value)) {
      throw new TypeError(
        `UriBuilder.build(): value ${JSON.stringify(plain)} for "${t.name}" does not match its regex ${t.regex}` +
          (value === plain ? '' : ` (encoded: ${value})`),
      );
    }
    out += value;
  }
  return out;
}

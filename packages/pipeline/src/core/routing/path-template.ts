/**
 * Path templates (Jakarta REST 3.1 §3.7.2-3.7.3): parsing and validating `@Path` values,
 * URI-encoding their literals, the anchored regex each compiles to, and the JAX-RS sort order.
 * All of it runs at start-up; a bad template throws there, never per request.
 */

/** A compiled `@Path` template. */
export interface CompiledTemplate {
  /** Normalised: leading '/', no trailing '/', no '//' (root is '/'); variables as `{name}` / `{name: regex}`. */
  readonly template: string;
  /** Anchored; tolerates one trailing slash. Capture groups of user regexes are kept. */
  readonly regex: RegExp;
  /** Variable names in order. */
  readonly names: readonly string[];
  /** Sort key 1: literal characters of the URI-encoded template (§3.7.2 1.e). */
  readonly literalChars: number;
  /** Sort key 2: template variables. */
  readonly groups: number;
  /** Sort key 3: variables with a non-default regex. */
  readonly customGroups: number;
  readonly isLiteral: boolean;
  /**
   * A sub-resource locator's template: it matches the path's beginning, and the rest (`''` or
   * `/...`) is captured by the group at `Compiled.restIndex` (§3.7.3: the final `(/.*)?`).
   */
  readonly open: boolean;
}

/** A template compiled, with what the router needs to index it. */
export interface Compiled {
  readonly tpl: CompiledTemplate;
  /** Capture group index of each name (user regexes may contain groups of their own). */
  readonly indices: readonly number[];
  /** Literal text before the first variable or '%': its first segment keys the scan index. */
  readonly prefix: string;
  /** URI-encoded literal path, for literal templates. */
  readonly key: string;
  /** Shortest path the template can match (see `Bucket.minLength`). */
  readonly minLength: number;
  /** Capture group of the unmatched rest of the path, for an open template; -1 otherwise. */
  readonly restIndex: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const DEFAULT_GROUP = '[^/]+';
// RFC 3986 pchar plus '/': kept as is. Anything else is percent-encoded (§3.7.3 step 1).
const PATH_SAFE = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Joins path fragments with single slashes: `joinPaths('/api/', '/users/{id}')` is
 * `'/api/users/{id}'`; no fragments (or only empty ones) give `'/'`.
 */
export function joinPaths(...parts: (string | undefined)[]): string {
  let out = '';
  for (const part of parts) {
    if (part === undefined) continue;
    let start = 0;
    let end = part.length;
    while (start < end && part.charCodeAt(start) === 47) start++;
    while (end > start && part.charCodeAt(end - 1) === 47) end--;
    if (end > start) out += '/' + part.slice(start, end);
  }
  return out === '' ? '/' : out;
}

/** URI-encodes a literal run (keeping valid %XX, upper-cased) and collapses '//' runs. */
function encodeLiteral(text: string, template: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '/' && out.endsWith('/')) continue;
    if (c === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new Error(`Invalid path template "${template}": bad percent-encoding`);
      out += '%' + hex.toUpperCase();
      i += 2;
    } else if (PATH_SAFE.test(c)) {
      out += c;
    } else {
      const cp = text.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      out += encodeURIComponent(String.fromCodePoint(cp));
    }
  }
  return out;
}

/** Regex for an encoded literal: metacharacters escaped, %XX hex digits case-insensitive. */
function literalRegex(encoded: string): string {
  return encoded
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%${hexClass(a)}${hexClass(b)}`);
}

function hexClass(d: string): string {
  return d >= 'A' ? `[${d}${d.toLowerCase()}]` : d;
}

function countGroups(re: string, template: string): number {
  try {
    // Alone first: `a)|(b` is only valid once wrapped, and would then escape its group.
    new RegExp(re);
    // An empty alternative always matches, so the result length is 1 + the number of groups.
    return (new RegExp(`(?:${re})|`).exec('') as RegExpExecArray).length - 1;
  } catch (e) {
    throw new Error(`Invalid path template "${template}": ${(e as Error).message}`);
  }
}

/**
 * Compiles `path` for the router (see {@link compileTemplate} for the template alone); `open`
 * compiles a sub-resource locator's template, which matches any path that begins with it.
 */
export function compilePath(path: string, open = false): Compiled {
  type Token = { literal: string } | { name: string; re: string | undefined };
  const tokens: Token[] = [];
  let lit = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] as string;
    if (c === '}') throw new Error(`Invalid path template "${path}": unbalanced '}'`);
    if (c !== '{') {
      lit += c;
      continue;
    }
    // Variable: name up to ':' or '}', then a regex whose braces must balance.
    let depth = 1;
    let j = i + 1;
    for (; j < path.length && depth > 0; j++) {
      const d = path[j];
      if (d === '\\') j++;
      else if (d === '{') depth++;
      else if (d === '}') depth--;
    }
    if (depth !== 0) throw new Error(`Invalid path template "${path}": unbalanced '{'`);
    const body = path.slice(i + 1, j - 1);
    const colon = body.indexOf(':');
    const name = (colon < 0 ? body : body.slice(0, colon)).trim();
    const re = colon < 0 ? undefined : body.slice(colon + 1).trim();
    if (!NAME.test(name) || name === '__proto__') {
      throw new Error(`Invalid path template "${path}": bad variable name "${name}"`);
    }
    if (re === '') throw new Error(`Invalid path template "${path}": empty regex for "${name}"`);
    if (lit !== '') tokens.push({ literal: lit });
    lit = '';
    tokens.push({ name, re });
    i = j - 1;
  }
  if (lit !== '') tokens.push({ literal: lit });

  let template = '';
  let encoded = '';
  let source = '^';
  let prefix: string | undefined;
  let literalChars = 0;
  let customGroups = 0;
  let defaultGroups = 0;
  let groupIndex = 1;
  const names: string[] = [];
  const indices: number[] = [];
  tokens.forEach((t, n) => {
    if ('literal' in t) {
      let text = (n === 0 && !t.literal.startsWith('/') ? '/' : '') + t.literal;
      if (n === tokens.length - 1) {
        text = text.replace(/\/+$/, ''); // trailing slash is tolerated at match time instead
        if (text === '' && n === 0) text = '/'; // root
      }
      const enc = encodeLiteral(text, path);
      template += text.replace(/\/{2,}/g, '/');
      encoded += enc;
      literalChars += enc.length;
      source += literalRegex(enc);
      return;
    }
    if (n === 0) {
      template += '/';
      encoded += '/';
      literalChars++;
      source += '/';
    }
    if (names.includes(t.name)) throw new Error(`Invalid path template "${path}": duplicate variable "${t.name}"`);
    prefix ??= encoded;
    names.push(intern(t.name));
    indices.push(groupIndex);
    const re = t.re ?? DEFAULT_GROUP;
    if (re !== DEFAULT_GROUP && re !== '[^/]+?') customGroups++;
    else defaultGroups++;
    groupIndex += 1 + countGroups(re, path);
    template += t.re === undefined ? `{${t.name}}` : `{${t.name}: ${t.re}}`;
    source += `(${re})`;
  });
  if (template === '') {
    template = '/';
    encoded = '/';
    literalChars = 1;
    source += '/';
  }
  if (open) source = (template === '/' ? '^' : source) + '(/.*)?$';
  else source += '/?$';
  let regex: RegExp;
  try {
    regex = new RegExp(source);
  } catch (e) {
    throw new Error(`Invalid path template "${path}": ${(e as Error).message}`);
  }
  const pct = encoded.indexOf('%');
  prefix ??= encoded;
  if (pct >= 0 && pct < prefix.length) prefix = prefix.slice(0, pct);
  const tpl: CompiledTemplate = Object.freeze({
    template,
    regex,
    names: Object.freeze(names),
    literalChars,
    groups: names.length,
    customGroups,
    isLiteral: names.length === 0 && !open,
    open,
  });
  return { tpl, indices, prefix, key: encoded, minLength: literalChars + defaultGroups, restIndex: open ? groupIndex : -1 };
}

/**
 * The same text as an internalized string (V8 internalizes property keys), like the literal a
 * `@PathParam('id')` passes: comparing the two per request is then a pointer check, not a
 * character compare.
 */
function intern(s: string): string {
  return Object.keys({ [s]: 0 })[0]!;
}

/**
 * Compiles a JAX-RS path template: `{name}` matches one segment (`[^/]+`), `{name: regex}`
 * uses the regex (braces inside must balance, e.g. `{id: [0-9]{1,5}}`). Literal text is
 * URI-encoded first (§3.7.3), so `/a b` matches the request path `/a%20b`.
 * @throws Error naming the template when it is invalid (start-up, never per request).
 */
export function compileTemplate(path: string): CompiledTemplate {
  return compilePath(path).tpl;
}

/**
 * JAX-RS §3.7.2 order: literal characters, then groups, then custom-regex groups (all desc), then
 * resource methods before sub-resource locators.
 */
export function compareTemplates(a: CompiledTemplate, b: CompiledTemplate): number {
  if (a.literalChars !== b.literalChars) return a.literalChars > b.literalChars ? -1 : 1;
  if (a.groups !== b.groups) return a.groups > b.groups ? -1 : 1;
  if (a.customGroups !== b.customGroups) return a.customGroups > b.customGroups ? -1 : 1;
  if (a.open !== b.open) return a.open ? 1 : -1;
  return a.template < b.template ? -1 : a.template > b.template ? 1 : 0;
}

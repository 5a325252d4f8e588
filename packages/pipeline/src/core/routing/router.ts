/**
 * The route table (Jakarta REST 3.1 §3.7.2): templates (compiled by `path-template.ts`) are
 * sorted once at start-up; `match` does one Map lookup for literal paths, otherwise runs the
 * regexes of the pre-sorted buckets (only those sharing the path's first segment, in big
 * tables) until one matches.
 */
import { compareTemplates, compilePath, type CompiledTemplate } from './path-template.js';

/** Result of {@link Router.match}. */
export class RouteMatch<T> {
  /** Every distinct value registered under an equivalent template, in registration order. */
  readonly values: readonly T[];
  /** Variable names; for a bucket shared by templates with different variable names, every name. */
  readonly names: readonly string[];
  /** The decoded value of each of {@link names}, in the same order. */
  readonly args: readonly string[];

  constructor(values: readonly T[], names: readonly string[], args: readonly string[]) {
    this.values = values;
    this.names = names;
    this.args = args;
  }

  /** Name → decoded value, built on each call (the request path reads {@link args}). */
  get params(): Record<string, string> {
    return paramsObject(this.names, this.args);
  }
}

/** The match of a sub-resource locator's (open) template: what is left of the path for the sub-resource. */
export class OpenMatch<T> extends RouteMatch<T> {
  /** `''` or a path beginning with `/`, still percent-encoded. */
  readonly rest: string;

  constructor(values: readonly T[], names: readonly string[], args: readonly string[], rest: string) {
    super(values, names, args);
    this.rest = rest;
  }
}

/** `{ name: value }` from parallel lists (names come from validated templates: never `__proto__`). */
export function paramsObject(names: readonly string[], values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!;
  return out;
}

/** Scan lists longer than this get the first-segment index. */
const INDEX_THRESHOLD = 16;

interface Bucket<T> {
  readonly tpl: CompiledTemplate;
  readonly regex: RegExp;
  readonly prefix: string;
  readonly key: string;
  /** Union of the variable names of every template in the bucket, with their group index. */
  readonly names: string[];
  readonly indices: number[];
  readonly values: T[];
  /**
   * No shorter path can match: the template's encoded literal characters plus one per variable
   * with the default `[^/]+` (a custom regex may match ''). One comparison skips most regexes of
   * longer templates sharing a prefix (`/users/{id}/orders` for `/users/7`).
   */
  readonly minLength: number;
  /** The answer for a literal template (no variables), shared by every match. */
  readonly literalMatch: RouteMatch<T>;
  /** Capture group of the rest of the path (open templates of sub-resource locators), or -1. */
  readonly restIndex: number;
}

/**
 * The route table: templates with the same regex (equal modulo variable names) share one
 * bucket; `match` returns the first matching bucket in JAX-RS order, the caller then picks the
 * method among its values (405/415/406 happen there).
 */
export class Router<T> {
  private readonly buckets = new Map<string, Bucket<T>>();
  private readonly literals = new Map<string, Bucket<T>>();
  /**
   * Bit n set when some literal key has length n (n >= 31 shares the top bit): a path whose
   * length matches no literal skips the Map lookup, which hashes a fresh string every request.
   */
  private literalLengths = 0;
  /**
   * The last literal key that matched and its bucket: a server's hot route repeats, and comparing
   * the fresh path with one string (a length check, then its characters) costs a fraction of
   * hashing it for the Map (issue 27's profile: about 600 instructions per request for the hash
   * and the lookup). Set together, to a key of {@link literals} and its bucket's match; `''` is
   * never a key (a path is at least `/`).
   */
  private lastKey = '';
  private lastMatch: RouteMatch<T> | undefined = undefined;
  /** Scan lists by first path segment; each holds, in match order, the buckets that can match it. */
  private readonly bySegment = new Map<string, readonly Bucket<T>[]>();
  /** Scan list for a first segment no bucket names literally. */
  private anySegment: readonly Bucket<T>[] = [];
  private sorted: readonly CompiledTemplate[] = [];
  private frozen = false;

  /** Templates of all buckets: registration order before {@link freeze}, match order after. */
  get templates(): readonly CompiledTemplate[] {
    return this.frozen ? this.sorted : [...this.buckets.values()].map((b) => b.tpl);
  }

  /**
   * Registers `value` under `template` (compiled here, so a bad template throws at start-up).
   * `open` registers a sub-resource locator's template: it matches every path that begins with it
   * and answers an {@link OpenMatch} with the rest (resource methods of an equal template win).
   * @throws Error after {@link freeze}, or when an equivalent template binds the same variable
   * name to a different position (e.g. `/{a}/{b}` and `/{b}/{a}`).
   */
  add(template: string, value: T, open = false): void {
    if (this.frozen) throw new Error(`Router is frozen: cannot add "${template}"`);
    const c = compilePath(template, open);
    const source = c.tpl.regex.source;
    let b = this.buckets.get(source);
    if (b === undefined) {
      const values: T[] = [];
      b = {
        tpl: c.tpl,
        regex: c.tpl.regex,
        prefix: c.prefix,
        key: c.key,
        names: [],
        indices: [],
        values,
        minLength: c.minLength,
        literalMatch: new RouteMatch(values, NO_NAMES, NO_NAMES),
        restIndex: c.restIndex,
      };
      this.buckets.set(source, b);
    }
    c.tpl.names.forEach((name, i) => {
      const at = (b as Bucket<T>).names.indexOf(name);
      const index = c.indices[i] as number;
      if (at < 0) {
        (b as Bucket<T>).names.push(name);
        (b as Bucket<T>).indices.push(index);
      } else if ((b as Bucket<T>).indices[at] !== index) {
        throw new Error(
          `Path templates "${(b as Bucket<T>).tpl.template}" and "${c.tpl.template}" are equivalent but place "${name}" differently`,
        );
      }
    });
    // One value registered under several equivalent templates (to bind each one's names) counts once.
    if (!b.values.includes(value)) b.values.push(value);
  }

  /**
   * Sorts the buckets once (JAX-RS §3.7.2) and builds the literal fast path.
   *
   * Why a literal template L (encoded path K, n = |K| literal chars) can answer from a Map: a
   * request P reaches the Map only if P is K or K + '/'. Every other literal needs P = its own
   * key. A template T whose variables all use the default `[^/]+` and that matches P spends at
   * least one character of P per variable, so literalChars(T) <= |P| - groups(T) - s, where s = 1
   * if T's optional trailing slash was used. For P = K that is < n, so L sorts first. For
   * P = K + '/' reaching n needs groups(T) = 1 and s = 0; then P's final '/' must be a literal
   * of T (impossible: normalised templates do not end in '/') or inside a capture (impossible:
   * `[^/]`). So only templates with a custom regex (which may match '' or '/') can outrank L;
   * those sorted before L are tested against K and K + '/' here, and if one matches, L leaves
   * the Map and is matched by the ordered scan instead. Literals containing %XX also stay in
   * the scan so lower-case hex in a request still matches.
   */
  freeze(): void {
    if (this.frozen) return;
    const all = [...this.buckets.values()].sort((x, y) => compareTemplates(x.tpl, y.tpl));
    const scan: Bucket<T>[] = [];
    const custom: Bucket<T>[] = []; // custom-regex buckets sorted before the current one
    for (const b of all) {
      if (!b.tpl.isLiteral) {
        scan.push(b);
        if (b.tpl.customGroups > 0 || b.tpl.open) custom.push(b);
        continue;
      }
      const shadowed = custom.some((t) => t.regex.test(b.key) || t.regex.test(b.key + '/'));
      if (!shadowed) {
        this.literals.set(b.key, b);
        this.literalLengths |= lengthBit(b.key.length);
      }
      if (shadowed || b.key.includes('%')) scan.push(b);
    }
    this.index(scan);
    this.sorted = Object.freeze(all.map((b) => b.tpl));
    this.frozen = true;
  }

  /**
   * Finds the most specific template matching `path`: the raw, still percent-encoded path
   * without query string ('' is '/'; one trailing slash is tolerated). Variable values are
   * decoded with `decodeURIComponent` ('+' stays '+', as paths have no form encoding).
   * @throws URIError for a malformed %-sequence in a variable value: the caller answers 400.
   * @throws Error when called before {@link freeze}.
   */
  match(path: string): RouteMatch<T> | undefined {
    if (!this.frozen) throw new Error('Router.match() called before freeze()');
    const p = path.length === 0 ? '/' : path;
    const key = literalKey(p);
    if (key === this.lastKey) return this.lastMatch;
    const lit = (this.literalLengths & lengthBit(key.length)) === 0 ? undefined : this.literals.get(key);
    if (lit !== undefined) {
      this.lastKey = key;
      this.lastMatch = lit.literalMatch;
      return lit.literalMatch;
    }
    // No startsWith(prefix) pre-check: measured on Node 20, a failing anchored regex costs about
    // the same (~18 ns) as startsWith with an offset, and V8's regex beat a hand-written matcher.
    const list = this.scanList(p);
    const length = p.length;
    for (let i = 0; i < list.length; i++) {
      const b = list[i]!;
      if (length < b.minLength) continue;
      const m = b.regex.exec(p);
      if (m !== null) return byGroup(b, m);
    }
    return undefined;
  }

  /** The buckets a path can match, in order (see {@link index}). */
  private scanList(p: string): readonly Bucket<T>[] {
    if (this.bySegment.size === 0) return this.anySegment;
    const end = p.indexOf('/', 1);
    return this.bySegment.get(end < 0 ? p.slice(1) : p.slice(1, end)) ?? this.anySegment;
  }

  /**
   * Splits the sorted scan list by literal first segment, so a request is only tested against
   * buckets that share its first segment plus those whose first segment is a variable (`/{x}`,
   * `/a{x}`), still in JAX-RS order. Small tables skip it: the Map lookup (~30 ns, the key is
   * a fresh string to hash) costs more than a few failing regexes.
   */
  private index(scan: readonly Bucket<T>[]): void {
    this.anySegment = scan;
    if (scan.length <= INDEX_THRESHOLD) return;
    const segments = scan.map((b) => {
      const end = b.prefix.indexOf('/', 1);
      if (end >= 0) return b.prefix.slice(1, end);
      return b.tpl.isLiteral && b.prefix === b.key ? b.key.slice(1) : undefined; // literal without %XX
    });
    const any: Bucket<T>[] = [];
    const lists = new Map<string, Bucket<T>[]>();
    scan.forEach((b, i) => {
      const seg = segments[i];
      if (seg !== undefined) {
        if (!lists.has(seg)) lists.set(seg, [...any]); // variable-first buckets sorted before b
        (lists.get(seg) as Bucket<T>[]).push(b);
      } else {
        any.push(b);
        for (const list of lists.values()) list.push(b);
      }
    });
    for (const [seg, list] of lists) this.bySegment.set(seg, list);
    this.anySegment = any;
  }
}

function lengthBit(n: number): number {
  return 1 << (n < 31 ? n : 31);
}

/** The literal Map key for a path: one trailing slash dropped ('//' becomes the root '/'). */
function literalKey(p: string): string {
  const last = p.length - 1;
  return last > 0 && p.charCodeAt(last) === 47 ? p.slice(0, last) : p;
}

const NO_NAMES: readonly string[] = Object.freeze([]);

/** Decodes a variable value; only values with a '%' pay for `decodeURIComponent` (URIError when malformed). */
function decode(raw: string): string {
  // Values are mostly short ids: a char loop beats the indexOf builtin call up to ~16 chars.
  if (raw.length > 16) return raw.indexOf('%') < 0 ? raw : decodeURIComponent(raw);
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) === 37 /* % */) return decodeURIComponent(raw);
  return raw;
}

/** The match for a bucket whose regex matched, decoding the variable values. */
function byGroup<T>(b: Bucket<T>, m: RegExpExecArray): RouteMatch<T> {
  const { names, indices } = b;
  if (b.restIndex >= 0) return openMatch(b, m);
  if (names.length === 0) return b.literalMatch; // a literal matched by the scan (shadowed, or with %XX)
  const args = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++) args[i] = decode(m[indices[i]!] ?? '');
  return new RouteMatch(b.values, names, args);
}

function openMatch<T>(b: Bucket<T>, m: RegExpExecArray): OpenMatch<T> {
  const { names, indices } = b;
  const args = names.length === 0 ? NO_NAMES : names.map((_, i) => decode(m[indices[i]!] ?? ''));
  return new OpenMatch(b.values, names, args, m[b.restIndex] ?? '');
}

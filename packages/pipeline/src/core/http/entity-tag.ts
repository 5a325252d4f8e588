/**
 * Entity tags and conditional requests (Jakarta REST 3.1 §3.5.3 `EntityTag`, `Request.evaluatePreconditions`;
 * RFC 9110 §8.8.3 and §13): parse and format tags, compare them strongly or weakly, and decide a
 * request's preconditions in the order of RFC 9110 §13.2.2.
 */
import { Response } from './response.js';

/** `etagc` of RFC 9110 §8.8.3: `!`, `#`-`~` and obs-text; no `"`, no spaces, no controls. */
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;
const TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*$/;

/**
 * An entity tag, strong (`"v1"`) or weak (`W/"v1"`).
 *
 * @example
 * const tag = new EntityTag('3-1f2e');          // "3-1f2e"
 * EntityTag.parse('W/"abc"').weak;              // true
 */
export class EntityTag {
  constructor(
    /** The opaque tag, without quotes. */
    readonly value: string,
    /** A weak tag: semantically equivalent representations share it (RFC 9110 §8.8.1). */
    readonly weak = false,
  ) {
    if (!ETAGC.test(value))
      throw new TypeError(`An entity tag may not contain '"', spaces or control characters: ${JSON.stringify(value)}`);
  }

  /** Parses one tag (`"v"` or `W/"v"`); undefined when the text is not a tag. */
  static parse(text: string): EntityTag | undefined {
    const m = TAG.exec(text);
    return m === null ? undefined : new EntityTag(m[2]!, m[1] !== undefined);
  }

  /**
   * Parses an `If-Match` / `If-None-Match` value: `'*'`, or the list of tags (malformed members are
   * skipped, as a recipient may; RFC 9110 §13.1.1). Commas inside quotes do not split.
   */
  static parseList(header: string): EntityTag[] | '*' {
    if (header.trim() === '*') return '*';
    const tags: EntityTag[] = [];
    for (const m of header.matchAll(/(W\/)?"([^"]*)"/g)) {
      if (ETAGC.test(m[2]!)) tags.push(new EntityTag(m[2]!, m[1] !== undefined));
    }
    return tags;
  }

  /** Strong comparison: both strong and the same value (for If-Match). */
  strongEquals(other: EntityTag): boolean {
    return !this.weak && !other.weak && this.value === other.value;
  }

  /** Weak comparison: the same value, weak or not (for If-None-Match). */
  weakEquals(other: EntityTag): boolean {
    return this.value === other.value;
  }

  /** The header form: `"v"` or `W/"v"`. */
  toString(): string {
    return `${this.weak ? 'W/' : ''}"${this.value}"`;
  }
}

/** What the server knows about the current representation; both optional. */
export interface PreconditionState {
  /** The current representation's tag; undefined when the resource does not exist. */
  readonly tag?: EntityTag;
  /** When it last changed (compared in whole seconds, as HTTP dates are). */
  readonly lastModified?: Date;
  /** Whether the resource exists (default: true). `If-Match: *` fails without one. */
  readonly exists?: boolean;
}

/** The request headers preconditions read. */
export interface PreconditionRequest {
  readonly method: string;
  getHeader(name: string): string | undefined;
}

const seconds = (d: Date): number => Math.floor(d.getTime() / 1000);
const httpDate = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : Math.floor(t / 1000);
};

/**
 * Evaluates the request's preconditions against `state` in the order of RFC 9110 §13.2.2:
 * If-Match (strong), else If-Unmodified-Since; then If-None-Match (weak), else If-Modified-Since
 * (GET/HEAD only). Returns the response to send instead of running the method: 304 (with `ETag`
 * and `Last-Modified`, RFC 9110 §15.4.5) for GET/HEAD, 412 otherwise; undefined when the request
 * may proceed. An invalid date is ignored, as the RFC says.
 *
 * @example
 * const stop = evaluatePreconditions(ctx, { tag: new EntityTag(String(user.version)) });
 * if (stop !== undefined) return stop;
 */
export function evaluatePreconditions(request: PreconditionRequest, state: PreconditionState): Response | undefined {
  const { tag, lastModified } = state;
  const exists = state.exists ?? true;
  const safe = request.method === 'GET' || request.method === 'HEAD';
  const ifMatch = request.getHeader('if-match');
  if (ifMatch !== undefined) {
    const list = EntityTag.parseList(ifMatch);
    const ok = list === '*' ? exists : tag !== undefined && list.some((t) => t.strongEquals(tag));
    if (!ok) return failed(412, state);
  } else if (lastModified !== undefined) {
    const since = httpDate(request.getHeader('if-unmodified-since'));
    if (since !== undefined && seconds(lastModified) > since) return failed(412, state);
  }
  const ifNoneMatch = request.getHeader('if-none-match');
  if (ifNoneMatch !== undefined) {
    const list = EntityTag.parseList(ifNoneMatch);
    const matched = list === '*' ? exists : tag !== undefined && list.some((t) => t.weakEquals(tag));
    if (matched) return failed(safe ? 304 : 412, state);
  } else if (safe && lastModified !== undefined) {
    const since = httpDate(request.getHeader('if-modified-since'));
    if (since !== undefined && seconds(lastModified) <= since) return failed(304, state);
  }
  return undefined;
}

function failed(status: 304 | 412, state: PreconditionState): Response {
  const response = new Response(status);
  if (status === 304) {
    if (state.tag !== undefined) response.headers.etag = state.tag.toString();
    if (state.lastModified !== undefined) response.headers['last-modified'] = state.lastModified.toUTCString();
  }
  return response;
}

/**
 * Web links (RFC 8288, Jakarta REST 3.1 `Link`): `<uri>; rel="next"; type="..."; title="..."`,
 * formatted for a `Link` header and parsed from one.
 */

/** Target attributes of a {@link Link} besides its URI. */
export interface LinkParams {
  /** Relation type(s), e.g. `next` or `first prev` (RFC 8288 §3.3). */
  readonly rel: string;
  readonly type?: string;
  readonly title?: string;
  /** Any other attribute (`hreflang`, `anchor`, extensions). */
  readonly [param: string]: string | undefined;
}

const QUOTED = (v: string): string => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * @example
 * Response.ok(page).links(Link.of('/api/users?page=2&size=20', 'next'), Link.of('/api/users?page=0&size=20', 'first'))
 * Link.parse('</a>; rel="next", </b>; rel=prev') // [Link</a> next, Link</b> prev]
 */
export class Link {
  constructor(
    /** The target, absolute or relative to the request URI (RFC 8288 §3.1). */
    readonly uri: string,
    readonly params: LinkParams,
  ) {
    if (/[<>\s]/.test(uri)) throw new TypeError(`A link target may not contain '<', '>' or whitespace: ${JSON.stringify(uri)}`);
    if (!/^[!#-~]+(?: [!#-~]+)*$/.test(params.rel)) throw new TypeError(`Invalid link relation: ${JSON.stringify(params.rel)}`);
  }

  /** A link with just a relation. */
  static of(uri: string, rel: string): Link {
    return new Link(uri, { rel });
  }

  /**
   * A {@link LinkBuilder} for a target: a string, or anything that prints as one (a `URL`, a
   * `UriBuilder`, built when `build()` is called).
   * @example Link.fromUri(uri.absolutePathBuilder().replaceQueryParam('page', 2)).rel('next').type('application/json').build()
   */
  static fromUri(uri: string | { toString(): string }): LinkBuilder {
    return new LinkBuilder(uri);
  }

  get rel(): string {
    return this.params.rel;
  }

  /** The header form, parameters quoted: `</x>; rel="next"`. */
  toString(): string {
    let out = `<${this.uri}>`;
    for (const [k, v] of Object.entries(this.params)) if (v !== undefined) out += `; ${k}=${QUOTED(v)}`;
    return out;
  }

  /** Every link of a `Link` header value; malformed members are skipped. */
  static parse(header: string): Link[] {
    const links: Link[] = [];
    const member = /<([^>]*)>((?:\s*;\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*(?:=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
    for (const m of header.matchAll(member)) {
      const params: Record<string, string> = {};
      for (const p of m[2]!.matchAll(/;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?/g)) {
        const raw = p[2] ?? '';
        params[p[1]!.toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
      }
      if (params.rel === undefined) continue;
      try {
        links.push(new Link(m[1]!, params as unknown as LinkParams));
      } catch {
        // a malformed member is skipped (RFC 8288 §3: be liberal in what is parsed)
      }
    }
    return links;
  }
}

/** Fluent construction of a {@link Link} (Jakarta REST `Link.Builder`). */
export class LinkBuilder {
  private readonly attributes: Record<string, string> = {};

  constructor(private readonly target: string | { toString(): string }) {}

  /** Relation type; several calls add space-separated relations (`first prev`). */
  rel(rel: string): this {
    this.attributes.rel = this.attributes.rel === undefined ? rel : `${this.attributes.rel} ${rel}`;
    return this;
  }
  /** The target's media type hint. */
  type(type: string): this {
    return this.param('type', type);
  }
  title(title: string): this {
    return this.param('title', title);
  }
  /** Any other target attribute (`hreflang`, `anchor`, an extension). */
  param(name: string, value: string): this {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`Invalid link parameter name: ${JSON.stringify(name)}`);
    this.attributes[name.toLowerCase()] = value;
    return this;
  }
  /** The link; a relation is required (RFC 8288 §3.3). */
  build(): Link {
    if (this.attributes.rel === undefined) throw new TypeError('Link.fromUri(...).build(): a link needs a relation: call rel() first');
    return new Link(String(this.target), this.attributes as unknown as LinkParams);
  }
}

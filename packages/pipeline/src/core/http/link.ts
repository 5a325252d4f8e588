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

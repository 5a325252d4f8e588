/** A part's header block as the scanner found it: its headers and the `name` of its disposition. */
export interface PartHeaders {
  readonly name: string | undefined;
  readonly headers: Record<string, string>;
}

/**
 * Parses a part's header block (`Name: value` lines up to the blank line, RFC 7578 §4.8; folded
 * lines joined): names lower-cased, values trimmed and read as UTF-8 (RFC 7578 §5.1 allows
 * UTF-8 in `filename`), repeated headers joined with `, `.
 */
export function parsePartHeaders(block: Buffer): PartHeaders {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  let last: string | undefined;
  for (const line of block.toString('utf8').split('\r\n')) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    last = name;
  }
  const disposition = headers['content-disposition'];
  return { name: disposition === undefined ? undefined : dispositionName(disposition), headers };
}

/** The `name` parameter of a `Content-Disposition` value (quoted-string or token). */
function dispositionName(value: string): string | undefined {
  const m = /;\s*name\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i.exec(value);
  if (m === null) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

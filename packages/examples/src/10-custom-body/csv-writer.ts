import type { Body, MediaType, MessageBodyWriter, TypeToken } from '@jaxrs-node/pipeline';

/** One CSV line: a flat record, column name to value. */
type Row = Readonly<Record<string, unknown>>;

/**
 * Writes an array of flat objects as `text/csv` (RFC 4180): a header line from the keys (in
 * order of first appearance), CRLF line ends, fields with `,` `"` CR or LF quoted, `"` doubled.
 *
 * `produces` lists what the writer can offer when a method has no `@Produces`; `qs=0.5` makes
 * CSV lose to JSON (qs 1) when the client accepts anything (`Accept: *\/*`, curl's default), so
 * registering this writer does not turn every array response into CSV.
 */
export class CsvWriter implements MessageBodyWriter<readonly Row[]> {
  readonly produces: readonly string[] = ['text/csv;qs=0.5'];

  /** Called at most once per (type, media type): the pipeline caches the answer. */
  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === Array && mediaType.essence === 'text/csv';
  }

  writeTo(rows: readonly Row[]): Body {
    const columns: string[] = [];
    const seen = new Set<string>();
    for (const row of rows)
      for (const key of Object.keys(row))
        if (!seen.has(key)) {
          seen.add(key);
          columns.push(key);
        }
    const lines = [columns.map(cell).join(',')];
    for (const row of rows) lines.push(columns.map((c) => cell(row[c])).join(','));
    return `${lines.join('\r\n')}\r\n`;
  }
}

/** One field. null/undefined → empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean | bigint);
  // CSV injection (OWASP): a text cell starting with = + - @ is run as a formula by spreadsheets.
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

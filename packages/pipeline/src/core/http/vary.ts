import type { OutgoingHeaders } from './response.js';

/**
 * Adds `fieldName` to the `Vary` response header unless it, or `*`, is already listed.
 * Field names compare case-insensitively (RFC 9110 §12.5.5). The result is one comma-joined
 * value, so the header leaves as a single line however many features add to it (CORS adds
 * `Origin`, gzip adds `Accept-Encoding`).
 *
 * Shared by the CORS and gzip features and by content negotiation (`Vary: Accept`, write-entity.ts).
 *
 * @example
 * appendVary(response.headers, 'Origin'); // vary: Origin
 * appendVary(response.headers, 'origin'); // unchanged
 */
export function appendVary(headers: OutgoingHeaders, fieldName: string): void {
  const prev = headers.vary;
  if (prev === undefined) {
    headers.vary = fieldName;
    return;
  }
  const value = Array.isArray(prev) ? prev.join(', ') : String(prev);
  const wanted = fieldName.toLowerCase();
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === wanted || name === '*') return;
  }
  headers.vary = value.trim() === '' ? fieldName : `${value}, ${fieldName}`;
}

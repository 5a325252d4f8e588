/**
 * The `data:` lines of `text/event-stream` (WHATWG HTML §9.2.5-§9.2.6), shared by the server-sent
 * events feature and the built-in writer of streamed items, so both frame data the same way
 * without the core depending on the feature.
 */

/** The line terminators of `text/event-stream`: CRLF, LF or CR (WHATWG HTML §9.2.5). */
export const EVENT_STREAM_LINE_BREAK = /\r\n|\r|\n/;

/**
 * One `data:` line per line of `text` (a terminator inside data would otherwise end the field or
 * the event early); the blank line that dispatches the event is the caller's.
 * @example eventStreamData('a\nb') // 'data: a\ndata: b\n'
 */
export function eventStreamData(text: string): string {
  // The usual data (compact JSON, a short text) has no line break: one line, no split.
  if (text.indexOf('\n') < 0 && text.indexOf('\r') < 0) return `data: ${text}\n`;
  let out = '';
  for (const line of text.split(EVENT_STREAM_LINE_BREAK)) out += `data: ${line}\n`;
  return out;
}

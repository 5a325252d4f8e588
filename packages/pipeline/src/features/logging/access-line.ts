/**
 * The access line's fields rendered as JSON text without building an object: LoggingFeature
 * writes them through `jsonLogger()` as one string (see `renderedLineWriter`), the same text
 * `JSON.stringify` makes of the fields, for about a third of the instructions.
 */

/**
 * `JSON.stringify(Math.round(ms * 1000) / 1000)`: a duration in milliseconds to the microsecond,
 * written from integers (JavaScript's shortest round-trip form of a number with at most three
 * decimals is those decimals, ECMAScript Number::toString), so no double is formatted per line.
 */
export function millisJson(ms: number): string {
  const us = Math.round(ms * 1000);
  // Durations are non-negative and far below 2^53 µs; anything else takes the general path.
  if (!(us >= 0 && us <= Number.MAX_SAFE_INTEGER)) return JSON.stringify(us / 1000);
  const whole = Math.floor(us / 1000);
  const frac = us - whole * 1000;
  if (frac === 0) return `${whole}`;
  if (frac % 100 === 0) return `${whole}.${frac / 100}`;
  if (frac % 10 === 0) return `${whole}.${frac < 100 ? '0' : ''}${frac / 10}`;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

/**
 * `,"<name>":<JSON of value>` for string values that repeat from line to line (method, user agent,
 * remote address): the last one's text is kept, so a steady client costs one comparison.
 */
export class RepeatedMember {
  private last: string | undefined;
  private lastJson = '';

  constructor(private readonly head: string) {}

  /** The member, or '' for undefined (JSON.stringify leaves an undefined member out). */
  of(value: string | undefined): string {
    if (value === undefined) return '';
    if (value !== this.last) {
      this.last = value;
      this.lastJson = this.head + JSON.stringify(value);
    }
    return this.lastJson;
  }
}

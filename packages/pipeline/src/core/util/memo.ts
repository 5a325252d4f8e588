/** Small memoisation helpers for per-request work on values that repeat from request to request. */

/**
 * `compute` behind a one-entry cache: a call with the value of the previous cached call returns
 * the previous result without computing. Values longer than `maxLength` are computed every time
 * and leave the entry alone, so an odd, long value from one client neither stays in memory nor
 * evicts the common one. For pure functions of short header values that repeat from request to
 * request (Host, Accept-Encoding).
 *
 * @example
 * const parse = lastValueMemo((v: string) => v.split(','), 256);
 */
export function lastValueMemo<T>(compute: (value: string) => T, maxLength: number): (value: string) => T {
  let lastValue: string | undefined;
  let lastResult: T | undefined;
  return (value) => {
    if (value === lastValue) return lastResult as T;
    const result = compute(value);
    if (value.length <= maxLength) {
      lastValue = value;
      lastResult = result;
    }
    return result;
  };
}

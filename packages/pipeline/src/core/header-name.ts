/**
 * Header names in lower case, as `node:http` stores them. `toLowerCase()` allocates a new
 * string on every call (~18 ns on Node 20, even for a name already in lower case); filters
 * call `getHeader` / `setHeader` with a handful of constant names on every request, so the
 * answers are remembered: up to {@link MAX_NAMES} distinct names of at most {@link MAX_LENGTH}
 * characters (others are computed each time), so names taken from requests cannot make the
 * cache hold more than about 32 KB.
 */
const names = new Map<string, string>();
const MAX_NAMES = 512;
const MAX_LENGTH = 64;

export function headerName(name: string): string {
  let lower = names.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (names.size < MAX_NAMES && name.length <= MAX_LENGTH) names.set(name, lower);
  }
  return lower;
}

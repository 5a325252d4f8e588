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

/**
 * The last two names asked for, checked before the Map: a request filter reading one header and a
 * response filter setting another alternate between two constant (interned) names, and comparing
 * interned strings is a pointer comparison where the Map hashes and probes (~120 instructions).
 */
let name0 = '';
let lower0 = '';
let name1 = '';
let lower1 = '';

export function headerName(name: string): string {
  if (name === name0) return lower0;
  if (name === name1) return lower1;
  let lower = names.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (names.size < MAX_NAMES && name.length <= MAX_LENGTH) names.set(name, lower);
    else return lower;
  }
  name1 = name0;
  lower1 = lower0;
  name0 = name;
  lower0 = lower;
  return lower;
}

/**
 * Header names in lower case, as `node:http` stores them. `toLowerCase()` allocates a new
 * string on every call (~18 ns on Node 20, even for a name already in lower case); filters
 * call `getHeader` / `setHeader` with a handful of constant names on every request, so the
 * answers are remembered, up to {@link MAX_NAMES} distinct names (beyond that, computed).
 */
const names = new Map<string, string>();
const MAX_NAMES = 512;

export function headerName(name: string): string {
  let lower = names.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (names.size < MAX_NAMES) names.set(name, lower);
  }
  return lower;
}

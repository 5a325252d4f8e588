/**
 * Which reader or writer handles a (type, media type) when several can: Jakarta REST 3.1 §4.2.1
 * (readers) and §4.2.2 (writers). Among the providers whose `isReadable`/`isWriteable` accepts
 * it, the one whose declared media types (`consumes` / `produces`) match it most closely wins:
 * `x/y` before `x/*` before `*\/*` (a provider that declares none counts as `*\/*`); then an
 * application's provider before a built-in one (§4.1.3); then the order of the list (priority,
 * then registration). Runs only when a choice is not cached yet (readers.ts, writers.ts).
 */
import { parseMediaType, type MediaType } from '../http/media-type.js';

/** How closely `declared` matches `wanted`: 3 `x/y`, 2 `x/*`, 1 `*\/*` or nothing declared, 0 none compatible. */
export function declaredMatch(declared: readonly string[] | undefined, wanted: MediaType | undefined): number {
  if (declared === undefined || declared.length === 0 || wanted === undefined) return 1;
  let best = 0;
  for (const text of declared) {
    const d = parseMediaType(text);
    if (d === undefined) continue;
    if (d.type === '*') best = Math.max(best, 1);
    else if (d.type !== wanted.type && wanted.type !== '*') continue;
    else if (d.subtype === '*') best = Math.max(best, 2);
    else if (d.subtype === wanted.subtype || wanted.subtype === '*') best = Math.max(best, wanted.subtype === '*' ? 2 : 3);
  }
  return best;
}

/**
 * The best of `providers` that `accepts` the request: closest declared media type, then not
 * built-in, then first in the list. Undefined when none accepts.
 */
export function chooseProvider<P extends object>(
  providers: readonly P[],
  accepts: (p: P) => boolean,
  declared: (p: P) => readonly string[] | undefined,
  wanted: MediaType | undefined,
  builtin: ReadonlySet<object>,
): P | undefined {
  let best: P | undefined;
  let bestScore = -1;
  for (const p of providers) {
    if (!accepts(p)) continue;
    const score = declaredMatch(declared(p), wanted) * 2 + (builtin.has(p) ? 0 : 1);
    if (score > bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best;
}

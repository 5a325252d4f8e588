/**
 * Content negotiation (Jakarta REST 3.1 §3.8 and §3.7.2 step 3b): compatibility, choosing a
 * response type from Accept and `@Produces`, and `@Consumes` checks; `negotiate` and `consumes`
 * allocate nothing in the common cases. Parsing lives in `media-type.ts`.
 */
import { ACCEPT_ANY, APPLICATION_OCTET_STREAM, EMPTY_PARAMS, make, paramCount, specificity, type MediaType } from './media-type.js';

/** Wildcards on either side match (JAX-RS `MediaType.isCompatible`); parameters are ignored. */
export function isCompatible(a: MediaType, b: MediaType): boolean {
  if (a.type === '*' || b.type === '*') return true;
  if (a.type !== b.type) return false;
  return a.subtype === '*' || b.subtype === '*' || a.subtype === b.subtype;
}

/** Does the range's every parameter appear in `t` with the same value (charset case-insensitively)? */
function paramsMatch(range: MediaType, t: MediaType): boolean {
  if (range.params === EMPTY_PARAMS) return true;
  for (const name in range.params) {
    const want = range.params[name] as string;
    const got = t.params[name];
    if (got === undefined) return false;
    if (got !== want && (name !== 'charset' || got.toLowerCase() !== want.toLowerCase())) return false;
  }
  return true;
}

/**
 * The Accept range that decides the weight of concrete type `t`: the most specific matching
 * range (RFC 9110 §12.5.1: `text/*;q=0, text/plain` accepts text/plain, refuses text/html).
 */
export function decidingRange(accept: readonly MediaType[], t: MediaType): MediaType | undefined {
  let best: MediaType | undefined;
  let bestRank = -1;
  for (const r of accept) {
    if (!isCompatible(r, t) || !paramsMatch(r, t)) continue;
    const rank = specificity(r) * 1024 + paramCount(r);
    if (rank > bestRank) {
      best = r;
      bestRank = rank;
    }
  }
  return best;
}

/** A negotiated response type with the keys JAX-RS §3.7.2 (3b) ranks resource methods by. */
export interface Negotiation {
  readonly mediaType: MediaType;
  /** Client weight from the most specific matching Accept range (> 0). */
  readonly q: number;
  /** Server weight (`qs`) of the `@Produces` entry. */
  readonly qs: number;
  /** Wildcards bridged between the Accept range and the `@Produces` entry (§3.7.2 `d`), lower is better. */
  readonly distance: number;
}

// Side results of select(): module-level so negotiate() allocates nothing.
let selQ = 0;
let selQs = 0;
let selD = 0;

/**
 * Chooses the response media type (Jakarta REST 3.1 §3.8) from the client's ranges (best
 * first, from `parseAccept` (media-type.ts)) and the server's `@Produces` list (`q` = `qs`). An empty list
 * on either side means `*\/*`; when the method has no `@Produces`, pass the writers' types.
 *
 * A concrete candidate always beats a wildcard one (§3.8 steps 7-8), so candidates are concrete
 * types ranked by client q (taken from the most specific matching range, q=0 refuses), then
 * server qs, then fewer wildcards bridged (§3.7.2 distance `d`), then `@Produces` order, then
 * Accept order. With no concrete candidate, `*\/*` or `application/*` yields
 * `application/octet-stream` if the client accepts it (§3.8 step 9); other wildcards (`text/*`)
 * cannot be resolved: undefined (406). The result's `q` field is whatever the chosen object
 * carries (qs of a `@Produces` entry or q of an Accept range): use {@link negotiateDetailed}
 * to rank methods. Allocates nothing unless a wildcard `@Produces` entry carries parameters.
 */
export function negotiate(accept: readonly MediaType[], produces: readonly MediaType[]): MediaType | undefined {
  return select(accept, produces);
}

/** {@link negotiate} plus the ranking keys, for choosing between resource methods. */
export function negotiateDetailed(accept: readonly MediaType[], produces: readonly MediaType[]): Negotiation | undefined {
  const mediaType = select(accept, produces);
  return mediaType === undefined ? undefined : { mediaType, q: selQ, qs: selQs, distance: selD };
}

/** Orders negotiations best first (q desc, qs desc, distance asc); 0 when equally good. */
export function compareNegotiations(a: Negotiation, b: Negotiation): number {
  if (a.q !== b.q) return a.q > b.q ? -1 : 1;
  if (a.qs !== b.qs) return a.qs > b.qs ? -1 : 1;
  return a.distance < b.distance ? -1 : a.distance > b.distance ? 1 : 0;
}

function select(accept: readonly MediaType[], produces: readonly MediaType[]): MediaType | undefined {
  const acc = accept.length === 0 ? ACCEPT_ANY : accept;
  const prod = produces.length === 0 ? ACCEPT_ANY : produces;
  let best: MediaType | undefined;
  let bestQ = 0;
  let bestQs = -1;
  let bestD = 5;
  let fallbackQs = -1; // qs of the best wildcard entry that can resolve to octet-stream
  for (const p of prod) {
    if (p.subtype !== '*') {
      const r = decidingRange(acc, p);
      if (r === undefined || r.q <= 0) continue;
      const d = 2 - specificity(r);
      if (r.q > bestQ || (r.q === bestQ && (p.q > bestQs || (p.q === bestQs && d < bestD)))) {
        best = p;
        bestQ = r.q;
        bestQs = p.q;
        bestD = d;
      }
      continue;
    }
    for (const a of acc) {
      if (!isCompatible(a, p)) continue;
      if (a.subtype === '*') {
        // The combined type is the more specific wildcard; only */* and application/* resolve.
        const t = p.type === '*' ? a.type : p.type;
        if ((t === '*' || t === 'application') && p.q > fallbackQs) fallbackQs = p.q;
        continue;
      }
      const r = decidingRange(acc, a) as MediaType; // a itself matches, so never undefined
      if (r.q <= 0) continue;
      const d = 2 - specificity(p); // r is concrete: only p's wildcards are bridged
      if (r.q > bestQ || (r.q === bestQ && (p.q > bestQs || (p.q === bestQs && d < bestD)))) {
        best = p.params === EMPTY_PARAMS ? a : make(a.type, a.subtype, Object.freeze({ ...a.params, ...p.params }), p.q);
        bestQ = r.q;
        bestQs = p.q;
        bestD = d;
      }
    }
  }
  if (best === undefined && fallbackQs >= 0) {
    const r = decidingRange(acc, APPLICATION_OCTET_STREAM);
    if (r !== undefined && r.q > 0) {
      best = APPLICATION_OCTET_STREAM;
      bestQ = r.q;
      bestQs = fallbackQs;
      bestD = 4 - specificity(r);
    }
  }
  selQ = bestQ;
  selQs = bestQs;
  selD = bestD;
  return best;
}

/**
 * Does a request `Content-Type` satisfy a `@Consumes` list? An empty list accepts anything.
 * Parameters are ignored on both sides, as in Jersey (`application/json; charset=utf-8`
 * satisfies `@Consumes('application/json')`).
 */
export function consumes(contentType: MediaType, consumesList: readonly MediaType[]): boolean {
  if (consumesList.length === 0) return true;
  for (const c of consumesList) if (isCompatible(contentType, c)) return true;
  return false;
}

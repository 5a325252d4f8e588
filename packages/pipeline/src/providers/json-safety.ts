import { BodyErrorCode } from './body-errors.js';

/**
 * Guards for parsed request JSON (Fastify's body-limit contract). Both functions are iterative: a
 * 100 000-deep document must be answered with 400, not a `RangeError` from a recursive walk.
 */

/**
 * Does the JSON nest arrays/objects deeper than `maxDepth`? Scans the UTF-8 bytes (strings and
 * their escapes skipped; multi-byte UTF-8 sequences never contain ASCII bytes) BEFORE
 * `JSON.parse`: V8 parses 1 MiB of `[[[[...` fine but spends ~130 ms on it, 20x a normal
 * document, so a hostile body is refused before that. Typed-array indexing costs ~1.5 ns per
 * byte, half of a `charCodeAt` loop. Invalid JSON may give any answer: `JSON.parse` rejects it.
 */
export function exceedsDepth(json: Uint8Array, maxDepth: number): boolean {
  const n = json.length;
  // Valid JSON nested d deep has at least 2d bracket bytes: short bodies cannot exceed.
  if (n <= 2 * maxDepth) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = json[i];
    if (c === 34) {
      // '"': skip to the closing quote, stepping over escapes
      for (i++; i < n; i++) {
        const d = json[i];
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 || c === 123) {
      // '[' '{'
      if (++depth > maxDepth) return true;
    } else if (c === 93 || c === 125) {
      // ']' '}'
      depth--;
    }
  }
  return false;
}

/**
 * Finds what must not reach application code in a `JSON.parse` result:
 * - an own `__proto__` key (`JSON.parse` keeps it as a plain key; `Object.assign` or a deep merge
 *   then swaps or pollutes prototypes);
 * - a `constructor` key holding an object with a `prototype` key (the `constructor.prototype`
 *   pollution path, as rejected by Fastify's secure-json-parse);
 * - a number that overflowed to ±Infinity (`1e400`, or 309+ digit integers).
 * Keys are checked after JSON unescaping, so `"\u005f_proto__"` is caught too.
 * @returns the matching {@link BodyErrorCode}, or undefined when the value is safe.
 */
export function findUnsafeJson(root: unknown): BodyErrorCode | undefined {
  if (typeof root !== 'object' || root === null) {
    return typeof root === 'number' && !Number.isFinite(root) ? BodyErrorCode.NonFiniteNumber : undefined;
  }
  // An explicit stack instead of recursion: depth is bounded by the caller, width by the body limit.
  // Made on the first nested value only: a flat object (the usual request body) allocates nothing.
  let stack: object[] | undefined;
  for (let node: object | undefined = root; node !== undefined; node = stack?.pop()) {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'object') {
          if (v !== null) (stack ??= []).push(v);
        } else if (typeof v === 'number' && !Number.isFinite(v)) {
          return BodyErrorCode.NonFiniteNumber;
        }
      }
      continue;
    }
    const obj = node as Record<string, unknown>;
    // for-in: JSON.parse objects have only own enumerable keys, and V8's enum cache makes it cheap.
    for (const key in obj) {
      if (key === '__proto__') return BodyErrorCode.ForbiddenKey; // read before obj[key]: that getter is the prototype
      const v = obj[key];
      if (typeof v === 'object') {
        if (v === null) continue;
        if (key === 'constructor' && Object.hasOwn(v, 'prototype')) return BodyErrorCode.ForbiddenKey;
        (stack ??= []).push(v);
      } else if (typeof v === 'number' && !Number.isFinite(v)) {
        return BodyErrorCode.NonFiniteNumber;
      }
    }
  }
  return undefined;
}

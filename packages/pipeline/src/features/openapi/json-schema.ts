import type { JsonSchema } from './decorators.js';

/**
 * Folding JSON Schema fragments into one schema, for a value that must satisfy all of them
 * (constraint decorators add up, Bean Validation 2.0 §5.6.5): types intersect, bounds tighten,
 * and anything that cannot be merged goes into `allOf`.
 */

const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);

function typesOf(t: unknown): string[] | undefined {
  if (typeof t === 'string') return [t];
  return Array.isArray(t) ? (t as string[]) : undefined;
}

/** Intersects two `type` values (`integer` is a `number`); an empty result keeps `b`, the constraint's. */
function intersectTypes(a: unknown, b: unknown): unknown {
  const as = typesOf(a);
  const bs = typesOf(b);
  if (as === undefined) return b;
  if (bs === undefined) return a;
  const out: string[] = [];
  for (const x of as) {
    for (const y of bs) {
      const t = x === y ? x : (x === 'integer' && y === 'number') || (x === 'number' && y === 'integer') ? 'integer' : undefined;
      if (t !== undefined && !out.includes(t)) out.push(t);
    }
  }
  if (out.length === 0) return b;
  return out.length === 1 ? out[0] : out;
}

/** `base` with every fragment applied; neither argument is changed. */
export function mergeSchemas(base: JsonSchema, fragments: readonly (Readonly<JsonSchema> | undefined)[]): JsonSchema {
  const out: JsonSchema = { ...base };
  const extra: JsonSchema[] = [];
  for (const f of fragments) {
    if (f === undefined) continue;
    const rest: JsonSchema = {};
    for (const [k, v] of Object.entries(f)) {
      const current = out[k];
      if (current === undefined) out[k] = v;
      else if (k === 'type') out.type = intersectTypes(current, v);
      else if (LOWER.has(k) && typeof current === 'number' && typeof v === 'number') out[k] = Math.max(current, v);
      else if (UPPER.has(k) && typeof current === 'number' && typeof v === 'number') out[k] = Math.min(current, v);
      else if (JSON.stringify(current) !== JSON.stringify(v)) rest[k] = v;
    }
    if (Object.keys(rest).length > 0) extra.push(rest);
  }
  if (extra.length > 0) out.allOf = [...((out.allOf as JsonSchema[] | undefined) ?? []), ...extra];
  // Keywords of one type apply to that type only: drop those of types no longer allowed.
  const types = typesOf(out.type);
  if (types !== undefined) {
    if (!types.includes('string')) for (const k of ['minLength', 'maxLength', 'pattern', 'format']) delete out[k];
    if (!types.includes('array')) for (const k of ['minItems', 'maxItems', 'items']) delete out[k];
  }
  return out;
}

/** The schema accepting `null` as well (a property without `@NotNull`: the validator lets null pass). */
export function orNull(schema: JsonSchema): JsonSchema {
  const types = typesOf(schema.type);
  if (types !== undefined && Object.keys(schema).every((k) => k !== '$ref' && k !== 'allOf' && k !== 'anyOf' && k !== 'oneOf')) {
    return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
  }
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

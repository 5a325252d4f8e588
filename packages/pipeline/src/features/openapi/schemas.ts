import { ownRules, type ConstraintDef } from '../validation/constraints.js';
import { Int, isBinaryType, isRangeableType, isStreamType } from '../../providers/type-tokens.js';
import { arrayElementType, declaredTypeSchema, ownArrayFields, type JsonSchema } from './decorators.js';
import { mergeSchemas, orNull } from './json-schema.js';

/** What the constraints of one value say beyond their fragments. */
export interface ConstraintFacts {
  readonly fragments: ReadonlyArray<Readonly<JsonSchema> | undefined>;
  /** A constraint rejects an absent value (`@NotNull`, `@NotBlank`). */
  readonly required: boolean;
  /** Every constraint lets `null` pass (all but `@NotNull`, `@NotBlank` and absent-checking custom ones). */
  readonly nullable: boolean;
}

const accepts = (c: ConstraintDef, v: unknown): boolean => {
  if (c.nullPasses) return true;
  try {
    return c.isValid(v);
  } catch {
    return false;
  }
};

/** Reads a value's constraints as the validator applies them (compile.ts `checkConstraints`). */
export function constraintFacts(cs: readonly ConstraintDef[]): ConstraintFacts {
  return {
    fragments: cs.map((c) => c.schema),
    required: cs.some((c) => !accepts(c, undefined)),
    nullable: cs.every((c) => accepts(c, null)),
  };
}

/** Classes that are not documented as objects of their own (compile.ts's NOT_NESTABLE, and Array). */
const BUILT_IN = new Set<unknown>([Object, String, Number, Boolean, BigInt, Symbol, Function, Date, Map, Set, Promise, Array, Int]);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The schema of a value declared with a type token: what TypeScript's metadata and the built-in
 * conversions say (`Int` is a safe integer, `Date` an RFC 3339 date-time, bytes and streams have
 * no JSON schema). `resolveClass` turns an application class into a `$ref`.
 */
export function scalarSchema(type: unknown): JsonSchema | undefined {
  if (type === String) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Int) return { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE };
  if (type === Boolean) return { type: 'boolean' };
  if (type === BigInt) return { type: 'integer' };
  if (type === Date) return { type: 'string', format: 'date-time' };
  return declaredTypeSchema(type);
}

/**
 * The `components.schemas` of one document: each application class once, named after it
 * (`User`, then `User_2` for another class of that name), built from its constraint decorators
 * (compile.ts reads the same rules) and `design:type` metadata.
 */
export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};
  private readonly names = new Map<Function, string>();

  /** `{ $ref }` to the class's component, registered (with the classes it refers to) on first use. */
  ref(cls: Function): JsonSchema {
    let name = this.names.get(cls);
    if (name === undefined) {
      const base = (cls.name || 'Anonymous').replace(/[^A-Za-z0-9._-]/g, '_');
      name = base;
      for (let i = 2; Object.hasOwn(this.components, name); i++) name = `${base}_${i}`;
      this.names.set(cls, name);
      this.components[name] = {}; // reserved first: a class may refer to itself
      this.components[name] = this.objectSchema(cls);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * The schema of a value of `type`: a class is a `$ref`, `[Class]` an array of it, a plain
   * object is taken as a JSON Schema; `element` is an array's element type. Undefined for types
   * with no JSON form (bytes, streams: their media type says it all) or unknown ones (`Object`).
   */
  forType(type: unknown, element?: unknown): JsonSchema | undefined {
    const scalar = scalarSchema(type);
    if (scalar !== undefined) return scalar;
    if (Array.isArray(type)) return { type: 'array', items: this.forType(type[0]) ?? {} };
    if (type === Array || type === Set) return { type: 'array', items: (element === undefined ? undefined : this.forType(element)) ?? {} };
    if (typeof type === 'object' && type !== null) return { ...(type as JsonSchema) };
    if (typeof type !== 'function' || BUILT_IN.has(type) || isBinaryType(type) || isStreamType(type) || isRangeableType(type))
      return undefined;
    if (type === URLSearchParams) return { type: 'object', additionalProperties: { type: 'string' } };
    return this.ref(type);
  }

  private objectSchema(cls: Function): JsonSchema {
    const chain: Function[] = [];
    for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
    // Base classes first, constraints adding up, as compile.ts merges them.
    const fields = new Map<string, { constraints: ConstraintDef[]; nested: Function | undefined; validated: boolean }>();
    const field = (key: string): { constraints: ConstraintDef[]; nested: Function | undefined; validated: boolean } => {
      let f = fields.get(key);
      if (f === undefined) fields.set(key, (f = { constraints: [], nested: undefined, validated: false }));
      return f;
    };
    for (const c of chain) {
      for (const [key, rules] of ownRules(c) ?? []) {
        const f = field(key);
        f.constraints.push(...rules.constraints);
        if (rules.nested !== undefined) {
          f.validated = true;
          f.nested = rules.nested.explicit;
        }
      }
      for (const key of ownArrayFields(c)) field(key);
    }
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [key, f] of fields) {
      const declared: unknown = Reflect.getMetadata('design:type', cls.prototype as object, key);
      const facts = constraintFacts(f.constraints);
      const base = this.fieldType(declared, f.nested ?? arrayElementType(cls, key), f.validated);
      const merged = mergeSchemas(base, facts.fragments);
      properties[key] = facts.nullable ? orNull(merged) : merged;
      if (facts.required) required.push(key);
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    return schema;
  }

  /** A field's type; `@Valid(Type)` on a field declared `Object` (a union, an interface) takes one object or a list (compile.ts). */
  private fieldType(declared: unknown, element: unknown, validated: boolean): JsonSchema {
    if (declared === Array) return this.forType(Array, element) ?? {};
    if (validated && element !== undefined && (declared === undefined || declared === Object)) {
      const one = this.forType(element) ?? {};
      return { anyOf: [one, { type: 'array', items: one }] };
    }
    return this.forType(element ?? declared) ?? {};
  }
}

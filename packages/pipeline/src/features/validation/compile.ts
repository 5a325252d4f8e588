import type { Constructor, TypeToken } from '../../core/context/contracts.js';
import { ownRules, type ConstraintDef } from './constraints.js';
import { generateValidator, generateValueCheck, type GeneratorRuntime } from './generate.js';

/** One failed constraint. `field` is a path such as `address.city` or `items[2].quantity`; '' is the entity itself. */
export interface Violation {
  readonly field: string;
  readonly message: string;
  /** The rejected value, only when it is a scalar short enough to echo (strings up to 256 chars). */
  readonly value?: unknown;
}

/** A compiled validator: returns every violation, in field order (empty when the value is valid). */
export type Validator = (value: unknown) => Violation[];

/** Deepest nesting of `Valid()` objects checked; deeper values get one violation instead of recursion. */
export const MAX_VALIDATION_DEPTH = 64;

/** Violations listed for one value at most; past it one more says the list is cut. */
export const MAX_VIOLATIONS = 100;

/** Checks one object at `path` (`''` for the entity), nested `depth` levels deep, appending its violations to `out`. */
export type ObjectCheck = (obj: object, path: string, depth: number, out: Violation[]) => void;

/** @internal A `Valid()` property's nested type. */
export interface CompiledNested {
  /** `either` when the declared type is unknown (no `design:type`): decided by the value's shape. */
  readonly mode: 'object' | 'array' | 'either';
  readonly type: CompiledType;
}
/** @internal One constrained property, its inherited constraints first. */
export interface CompiledField {
  readonly key: string;
  readonly constraints: readonly ConstraintDef[];
  readonly nested: CompiledNested | undefined;
}
/** @internal A class's compiled constraints and the functions that check them. */
export interface CompiledType {
  fields: readonly CompiledField[];
  /** Checks an object of this class (generated code, or the interpreter where code generation is off). */
  check: ObjectCheck;
  /** The class's validator. */
  validate: Validator;
}

// Committed only after a whole compile succeeds, so a start-up error never leaves half-built entries.
const compiledTypes = new WeakMap<object, CompiledType>();
const validators = new WeakMap<object, Validator | null>();

/**
 * Compiles the constraints of `type` (own and inherited) into one validator. Call it once per
 * entity type at start-up; `undefined` means the type has no constraints, so the request path can
 * skip validation entirely. Throws a TypeError for a `Valid()` whose nested type cannot be known.
 * The validator is a function generated for this class (see generate.ts), or an interpreter of the
 * same rules where code generation from strings is disallowed; both list the same violations.
 * @example
 * const validate = compileValidator(CreateUser);
 * const violations = validate?.(body) ?? [];
 */
export function compileValidator(type: TypeToken): Validator | undefined {
  if (typeof type !== 'function') return undefined;
  const cached = validators.get(type);
  if (cached !== undefined) return cached ?? undefined;
  const validator = compile(type, compiledTypes, true);
  validators.set(type, validator);
  return validator ?? undefined;
}

/**
 * @internal The validator of `type` through the interpreter only (what runs where code generation
 * from strings is disallowed), compiled apart from the caches: tests compare it with the generated one.
 */
export function interpretedValidator(type: Function): Validator | undefined {
  return compile(type, new WeakMap(), false) ?? undefined;
}

/** Compiles `type` and the types it nests that `known` lacks, adding them to `known`; null without constraints. */
function compile(type: Function, known: WeakMap<object, CompiledType>, generate: boolean): Validator | null {
  const session = new Map<object, CompiledType>();
  const ct = compileType(type, session, known);
  // Every type of the session has its fields now (self-references included): build their checks.
  for (const compiled of session.values()) buildChecks(compiled, generate);
  for (const [ctor, compiled] of session) known.set(ctor, compiled);
  return ct.fields.length === 0 ? null : ct.validate;
}

function compileType(ctor: Function, session: Map<object, CompiledType>, known: WeakMap<object, CompiledType>): CompiledType {
  const found = known.get(ctor) ?? session.get(ctor);
  if (found !== undefined) return found;
  // Registered before the fields are built so self-referencing types (Person.friend) resolve.
  const ct: CompiledType = { fields: [], check: notBuilt, validate: notBuilt };
  session.set(ctor, ct);

  const chain: Function[] = [];
  for (let c: unknown = ctor; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    chain.unshift(c);
  }
  // Base classes first: inherited fields come first and constraints add up (Bean Validation §5.6.5).
  const merged = new Map<string, { constraints: ConstraintDef[]; explicit?: Constructor; owner?: Function }>();
  for (const c of chain) {
    for (const [key, rules] of ownRules(c) ?? []) {
      let m = merged.get(key);
      if (m === undefined) {
        m = { constraints: [] };
        merged.set(key, m);
      }
      m.constraints.push(...rules.constraints);
      if (rules.nested !== undefined) {
        m.explicit = rules.nested.explicit;
        m.owner = c;
      }
    }
  }

  const fields: CompiledField[] = [];
  for (const [key, m] of merged) {
    const nested = m.owner === undefined ? undefined : resolveNested(m.owner, key, m.explicit, session, known);
    fields.push({ key, constraints: m.constraints, nested });
  }
  ct.fields = fields;
  return ct;
}

const NOT_NESTABLE = new Set<unknown>([Object, String, Number, Boolean, BigInt, Symbol, Function, Date, Map, Set, Promise]);

function resolveNested(
  owner: Function,
  key: string,
  explicit: Constructor | undefined,
  session: Map<object, CompiledType>,
  known: WeakMap<object, CompiledType>,
): CompiledNested {
  const where = `@Valid() on ${owner.name}.${key}`;
  const declared: unknown =
    typeof Reflect.getMetadata === 'function' ? Reflect.getMetadata('design:type', owner.prototype as object, key) : undefined;
  if (declared === Array) {
    if (explicit === undefined) throw new TypeError(`${where}: an array property needs Valid(ElementType)`);
    return { mode: 'array', type: compileType(explicit, session, known) };
  }
  if (explicit !== undefined) {
    if (declared !== undefined && declared !== Object && NOT_NESTABLE.has(declared)) {
      throw new TypeError(`${where}: the property is declared as ${(declared as Function).name}, not an object`);
    }
    // Without metadata (or for interface/union types, emitted as Object) the shape decides at run time.
    const mode = declared === undefined || declared === Object ? 'either' : 'object';
    return { mode, type: compileType(explicit, session, known) };
  }
  if (typeof declared !== 'function' || NOT_NESTABLE.has(declared)) {
    throw new TypeError(`${where}: cannot tell the nested class from the declared type; use Valid(Type)`);
  }
  return { mode: 'object', type: compileType(declared, session, known) };
}

function notBuilt(): never {
  throw new Error('internal: a validator ran before its compile finished');
}

const NOT_OBJECT = 'must be an object';
const NOT_ARRAY = 'must be an array';
const TOO_DEEP = `must not be nested more than ${MAX_VALIDATION_DEPTH} levels deep`;

const RUNTIME: GeneratorRuntime = {
  violation,
  join,
  hasMessage,
  cut: cutViolations,
  maxViolations: MAX_VIOLATIONS,
  maxDepth: MAX_VALIDATION_DEPTH,
  depthMessage: TOO_DEEP,
  notObject: NOT_OBJECT,
  notArray: NOT_ARRAY,
};

/**
 * Sets `ct.check` and `ct.validate`: generated code (generate.ts), or the interpreter below where code
 * generation from strings is disallowed (an `EvalError`) or `generate` is false. Both give the same
 * violations in the same order; the generated code costs about half as much per entity.
 */
function buildChecks(ct: CompiledType, generate: boolean): void {
  if (generate) {
    try {
      const g = generateValidator(ct, RUNTIME);
      ct.check = g.check;
      ct.validate = g.validate;
      return;
    } catch (e) {
      if (!(e instanceof EvalError)) throw e;
    }
  }
  ct.check = (obj, path, depth, out) => interpretObject(ct, obj, path, depth, out);
  ct.validate = (value) => validateRoot(ct, value);
}

/**
 * The check of one value against `cs` (a method parameter, a `@BeanParam` field), each violation
 * under `field`: generated code, or {@link checkConstraints} where code generation is disallowed.
 */
export function compileConstraintsCheck(cs: readonly ConstraintDef[], field: string): (value: unknown, out: Violation[]) => void {
  try {
    return generateValueCheck(cs, field, RUNTIME);
  } catch (e) {
    if (!(e instanceof EvalError)) throw e;
  }
  return (v, out) => checkConstraints(cs, v, '', field, false, out);
}

function validateRoot(ct: CompiledType, value: unknown): Violation[] {
  const out: Violation[] = [];
  if (!isObject(value)) out.push(violation('', NOT_OBJECT, value));
  else ct.check(value, '', 0, out);
  if (out.length > MAX_VIOLATIONS) cutViolations(out);
  return out;
}

function cutViolations(out: Violation[]): void {
  out.length = MAX_VIOLATIONS;
  out.push(violation('', `has more than ${MAX_VIOLATIONS} violations: the first ${MAX_VIOLATIONS} are listed`, undefined));
}

function interpretObject(ct: CompiledType, obj: object, path: string, depth: number, out: Violation[]): void {
  // Plain (JSON) objects: read own keys only, so `toString`/`constructor` or a polluted prototype
  // never stand in for a missing field. Class instances keep normal reads (prototype getters).
  const proto: unknown = Object.getPrototypeOf(obj);
  const ownOnly = proto === Object.prototype || proto === null;
  const record = obj as Record<string, unknown>;
  const fields = ct.fields;
  for (let i = 0; i < fields.length && out.length <= MAX_VIOLATIONS; i++) {
    const f = fields[i]!;
    const v = !ownOnly || Object.hasOwn(record, f.key) ? record[f.key] : undefined;
    // A nested value of the wrong shape gets one precise message from validateNested ("must be an
    // array") instead of an extra, vaguer type message from Size ("must be a string or an array").
    const shapeReported = f.nested !== undefined && v !== undefined && v !== null && !shapeFits(f.nested, v);
    checkConstraints(f.constraints, v, path, f.key, shapeReported, out);
    if (f.nested !== undefined && v !== undefined && v !== null) {
      validateNested(f.nested, v, join(path, f.key), depth, out);
    }
  }
}

/**
 * Runs the constraints of one value, appending a violation per failed constraint under the field
 * `path.key` (joined only when one fails). Null and undefined meet only the constraints that do not
 * let them pass (NotNull, NotBlank); a value of the wrong type gets the constraint's type message,
 * once, instead of its message.
 */
export function checkConstraints(
  cs: readonly ConstraintDef[],
  v: unknown,
  path: string,
  key: string,
  shapeReported: boolean,
  out: Violation[],
): void {
  const start = out.length;
  for (let j = 0; j < cs.length; j++) {
    const c = cs[j]!;
    let message: string;
    if (v === undefined || v === null) {
      if (c.nullPasses || c.isValid(v)) continue;
      message = c.message;
    } else if (c.accepts !== undefined && !c.accepts(v)) {
      message = c.typeMessage;
      // Min + Max + IsInt on a string would say "must be a finite number" three times.
      if (shapeReported || hasMessage(out, start, message)) continue;
    } else if (c.isValid(v)) {
      continue;
    } else {
      message = c.message;
    }
    out.push(violation(join(path, key), message, v));
  }
}

function validateNested(n: CompiledNested, v: unknown, path: string, depth: number, out: Violation[]): void {
  // Recursion is bounded here; JSON cannot make cycles, but it can nest 100 000 levels deep.
  if (depth + 1 > MAX_VALIDATION_DEPTH) {
    out.push(violation(path, TOO_DEEP, undefined));
    return;
  }
  if (Array.isArray(v)) {
    if (n.mode === 'object') {
      out.push(violation(path, NOT_OBJECT, v));
      return;
    }
    // Stops once the answer is long enough: a 700 kB array of bad elements must not make a 25 MB error.
    for (let i = 0; i < v.length && out.length <= MAX_VIOLATIONS; i++) {
      const e: unknown = v[i];
      const ep = `${path}[${i}]`;
      if (isObject(e)) n.type.check(e, ep, depth + 1, out);
      else out.push(violation(ep, NOT_OBJECT, e));
    }
  } else if (n.mode === 'array') {
    out.push(violation(path, NOT_ARRAY, v));
  } else if (isObject(v)) {
    n.type.check(v, path, depth + 1, out);
  } else {
    out.push(violation(path, NOT_OBJECT, v));
  }
}

function shapeFits(n: CompiledNested, v: unknown): boolean {
  return Array.isArray(v) ? n.mode !== 'object' : n.mode !== 'array' && isObject(v);
}

function isObject(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function hasMessage(out: readonly Violation[], start: number, message: string): boolean {
  for (let k = start; k < out.length; k++) if (out[k]!.message === message) return true;
  return false;
}

function violation(field: string, message: string, value: unknown): Violation {
  // Echo only small scalars: objects may be huge, bigints break JSON.stringify in error writers.
  const echo =
    value === null || typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= 256);
  return echo ? { field, message, value } : { field, message };
}

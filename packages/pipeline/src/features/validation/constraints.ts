import type { Constructor } from '../../core/context/contracts.js';

/** Options every constraint decorator accepts. */
export interface ConstraintOptions {
  /** Replaces the default message of this constraint (type mismatches keep their own message). */
  message?: string;
}

/**
 * One checked rule on one property, resolved when the decorator runs so the request path only
 * calls `isValid` and reads a ready message.
 */
export interface ConstraintDef {
  readonly kind: string;
  /** True for every constraint but NotNull/NotBlank: null and undefined pass (Bean Validation 2.0 §2.4). */
  readonly nullPasses: boolean;
  /** Type guard; a value it rejects gets `typeMessage` instead of `message`. */
  readonly accepts: ((value: unknown) => boolean) | undefined;
  readonly typeMessage: string;
  readonly isValid: (value: unknown) => boolean;
  readonly message: string;
  /**
   * The rule as a JSON Schema 2020-12 fragment for present values (`{ minLength: 2 }` for
   * `Size({ min: 2 })`), read by the OpenAPI generator; undefined when it cannot be expressed.
   */
  readonly schema?: Readonly<Record<string, unknown>> | undefined;
}

/** What `Valid()` recorded: an explicit nested type, if given. */
export interface NestedDef {
  readonly explicit: Constructor | undefined;
}

/** Everything declared on one property of one class (own declarations only, not inherited ones). */
export interface PropertyRules {
  readonly constraints: ConstraintDef[];
  nested: NestedDef | undefined;
}

// Keyed by constructor: decorators write once at class definition; `compileValidator` reads once at
// start-up (no metadata reads on the request path).
const store = new WeakMap<object, Map<string, PropertyRules>>();

/** Own (not inherited) rules of a class, in property declaration order. */
export function ownRules(ctor: object): ReadonlyMap<string, PropertyRules> | undefined {
  return store.get(ctor);
}

function rulesFor(target: object, key: string | symbol, decorator: string): PropertyRules {
  if (typeof target === 'function') {
    throw new TypeError(`@${decorator}() on static member ${String(key)}: constraints apply to instance properties only`);
  }
  if (typeof key !== 'string') {
    throw new TypeError(`@${decorator}() on symbol property ${String(key)}: JSON entities have string keys only`);
  }
  const ctor = (target as { constructor: object }).constructor;
  let props = store.get(ctor);
  if (props === undefined) {
    props = new Map();
    store.set(ctor, props);
  }
  let rules = props.get(key);
  if (rules === undefined) {
    rules = { constraints: [], nested: undefined };
    props.set(key, rules);
  }
  return rules;
}

/**
 * A constraint decorator: on a property of an entity or `@BeanParam` class, or on a parameter of
 * a resource method (checked in the VALIDATION slot, Bean Validation 2.0 §5.1.2 method constraints).
 */
export type ConstraintDecorator = PropertyDecorator & ParameterDecorator;

// Method parameter constraints, keyed by constructor, then method name; one list per parameter index.
const paramStore = new WeakMap<object, Map<string, ConstraintDef[][]>>();

/**
 * The constraints on the parameters of `method`, from the nearest class of `cls`'s chain that
 * declares any (by parameter index; holes for parameters without constraints).
 */
export function paramRules(cls: Function, method: string): ReadonlyArray<readonly ConstraintDef[] | undefined> | undefined {
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const list = paramStore.get(c)?.get(method);
    if (list !== undefined) return list;
  }
  return undefined;
}

function paramConstraints(target: object, key: string | symbol | undefined, index: number): ConstraintDef[] {
  const ctor = typeof target === 'function' ? target : (target as { constructor: object }).constructor;
  let methods = paramStore.get(ctor);
  if (methods === undefined) {
    methods = new Map();
    paramStore.set(ctor, methods);
  }
  const name = String(key);
  let params = methods.get(name);
  if (params === undefined) {
    params = [];
    methods.set(name, params);
  }
  return (params[index] ??= []);
}

/** Builds the decorator adding one constraint to a property or a method parameter. */
export function constraint(def: ConstraintDef): ConstraintDecorator {
  return (target: object, key: string | symbol | undefined, index?: number): void => {
    // Legacy decorators on one property or parameter apply bottom-up; unshift keeps source order for messages.
    if (typeof index === 'number') paramConstraints(target, key, index).unshift(def);
    else rulesFor(target, key!, def.kind).constraints.unshift(def);
  };
}

/**
 * Builds the decorator of `Valid()`. On a method parameter it changes nothing: the entity is always
 * validated with its class's constraints, and `@BeanParam` fields are checked where they are declared.
 */
export function nested(explicit: Constructor | undefined): ConstraintDecorator {
  if (explicit !== undefined && typeof explicit !== 'function') {
    throw new TypeError('@Valid(Type) needs a class');
  }
  return (target: object, key: string | symbol | undefined, index?: number): void => {
    if (typeof index === 'number') return;
    rulesFor(target, key!, 'Valid').nested = { explicit };
  };
}

/** Reads the `message` of an options argument, rejecting non-strings early (start-up, not per request). */
export function customMessage(options: ConstraintOptions | undefined, kind: string): string | undefined {
  const m = options?.message;
  if (m !== undefined && typeof m !== 'string') throw new TypeError(`@${kind}(): message must be a string`);
  return m;
}

/** Counts Unicode code points, so an emoji is one character to a user, not two UTF-16 units. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point; lone surrogates count once.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Finite numbers and bigints: JSON's `1e400` parses as Infinity and must not pass `Min`. */
export function isNumeric(v: unknown): boolean {
  return (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint';
}

export function isString(v: unknown): boolean {
  return typeof v === 'string';
}

export function isSized(v: unknown): boolean {
  return typeof v === 'string' || Array.isArray(v);
}

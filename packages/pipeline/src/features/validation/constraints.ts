import type { Constructor } from '../../core/context/providers.js';

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

/** Builds a property decorator adding one constraint. */
export function constraint(def: ConstraintDef): PropertyDecorator {
  return (target, key) => {
    // Legacy decorators on one property apply bottom-up; unshift keeps source order for messages.
    rulesFor(target, key, def.kind).constraints.unshift(def);
  };
}

/** Builds the property decorator of `Valid()`. */
export function nested(explicit: Constructor | undefined): PropertyDecorator {
  if (explicit !== undefined && typeof explicit !== 'function') {
    throw new TypeError('@Valid(Type) needs a class');
  }
  return (target, key) => {
    rulesFor(target, key, 'Valid').nested = { explicit };
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

// Loaded here so `design:type` is recorded for classes decorated with these constraints even
// when this module is imported without the package root (TypeScript's emit skips metadata otherwise).
import 'reflect-metadata';
import type { Constructor } from '../../core/context/contracts.js';
import {
  codePointLength,
  constraint,
  customMessage,
  isNumeric,
  isSized,
  isString,
  nested,
  type ConstraintDecorator,
  type ConstraintOptions,
} from './constraints.js';

/**
 * The value must be present: neither `undefined` (missing key) nor `null`.
 * @example
 * class CreateUser { \@NotNull() email!: string; }
 */
export function NotNull(options?: ConstraintOptions): ConstraintDecorator {
  return constraint({
    kind: 'NotNull',
    nullPasses: false,
    accepts: undefined,
    typeMessage: '',
    isValid: (v) => v !== undefined && v !== null,
    message: customMessage(options, 'NotNull') ?? 'must not be null',
  });
}

/**
 * The value must be a string with at least one non-whitespace character (implies NotNull).
 * @example
 * class CreateUser { \@NotBlank() lastName!: string; }
 */
export function NotBlank(options?: ConstraintOptions): ConstraintDecorator {
  const message = customMessage(options, 'NotBlank') ?? 'must not be blank';
  return constraint({
    // null/undefined never reach `accepts` (see compile.ts): they are blank, not a type error.
    kind: 'NotBlank',
    nullPasses: false,
    accepts: isString,
    typeMessage: 'must be a string',
    isValid: (v) => typeof v === 'string' && v.trim() !== '',
    message,
    // ECMA-262 `\S` is the complement of the WhiteSpace and LineTerminator set `trim()` removes.
    schema: { type: 'string', minLength: 1, pattern: '\\S' },
  });
}

/** Bounds of {@link Size}; at least one is required. */
export interface SizeOptions extends ConstraintOptions {
  min?: number;
  max?: number;
}

/**
 * Length of a string (in Unicode code points) or of an array, within `[min, max]`.
 * @example
 * class CreateUser { \@Size({ min: 2, max: 50 }) firstName!: string; }
 */
export function Size(options: SizeOptions): ConstraintDecorator {
  const { min, max } = options;
  for (const [name, b] of [
    ['min', min],
    ['max', max],
  ] as const) {
    if (b !== undefined && !(Number.isSafeInteger(b) && b >= 0)) {
      throw new TypeError(`@Size(): ${name} must be a non-negative integer, got ${String(b)}`);
    }
  }
  if (min === undefined && max === undefined) throw new TypeError('@Size() needs min or max');
  if (min !== undefined && max !== undefined && min > max) throw new TypeError(`@Size(): min ${min} > max ${max}`);
  const lo = min ?? 0;
  const hi = max ?? Number.MAX_SAFE_INTEGER;
  const fallback =
    min === undefined
      ? `size must be at most ${hi}`
      : max === undefined
        ? `size must be at least ${lo}`
        : `size must be between ${lo} and ${hi}`;
  return constraint({
    kind: 'Size',
    nullPasses: true,
    accepts: isSized,
    typeMessage: 'must be a string or an array',
    isValid: (v) => {
      if (Array.isArray(v)) return v.length >= lo && v.length <= hi;
      const s = v as string;
      // Code points never outnumber UTF-16 units and are at least half of them: count only when
      // the cheap bounds cannot decide (strings with surrogate pairs near a limit).
      if (s.length < lo) return false;
      if (s.length <= hi && s.length >= 2 * lo) return true;
      const n = codePointLength(s);
      return n >= lo && n <= hi;
    },
    message: customMessage(options, 'Size') ?? fallback,
    // JSON Schema counts code points too; each pair applies to its own type only.
    schema: {
      type: ['string', 'array'],
      ...(min === undefined ? {} : { minLength: min, minItems: min }),
      ...(max === undefined ? {} : { maxLength: max, maxItems: max }),
    },
  });
}

/** Options of {@link Min} and {@link Max}. */
export interface BoundOptions extends ConstraintOptions {
  /** Exclude the bound itself (`> n` instead of `>= n`), e.g. a quantity greater than 0. */
  exclusive?: boolean;
}

function bound(kind: 'Min' | 'Max', n: number, options: BoundOptions | undefined): ConstraintDecorator {
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new TypeError(`@${kind}() needs a finite number, got ${String(n)}`);
  const exclusive = options?.exclusive === true;
  const relation =
    kind === 'Min' ? (exclusive ? 'greater than' : 'greater than or equal to') : exclusive ? 'less than' : 'less than or equal to';
  // Mixed number/bigint comparison is exact in JS, so 64-bit ids compare correctly.
  const isValid =
    kind === 'Min'
      ? exclusive
        ? (v: unknown) => (v as number) > n
        : (v: unknown) => (v as number) >= n
      : exclusive
        ? (v: unknown) => (v as number) < n
        : (v: unknown) => (v as number) <= n;
  return constraint({
    kind,
    nullPasses: true,
    accepts: isNumeric,
    typeMessage: 'must be a finite number',
    isValid,
    message: customMessage(options, kind) ?? `must be ${relation} ${n}`,
    schema: {
      type: 'number',
      [kind === 'Min' ? (exclusive ? 'exclusiveMinimum' : 'minimum') : exclusive ? 'exclusiveMaximum' : 'maximum']: n,
    },
  });
}

/**
 * A number (or bigint) at least `n`; with `{ exclusive: true }`, greater than `n`. Like every
 * constraint, also usable on a resource method parameter or a `@BeanParam` field (the violation's
 * field is then `query.size`, `path.id`...).
 * @example
 * class CreateUser { \@Min(18) \@Max(100) age?: number; }
 * \@GET() list(\@QueryParam('size') \@DefaultValue('20') \@Min(1) \@Max(100) size: number) {}
 */
export function Min(n: number, options?: BoundOptions): ConstraintDecorator {
  return bound('Min', n, options);
}

/** A number (or bigint) at most `n`; with `{ exclusive: true }`, less than `n`. */
export function Max(n: number, options?: BoundOptions): ConstraintDecorator {
  return bound('Max', n, options);
}

/** A safe integer (|v| <= 2^53 - 1; larger JSON integers were already rounded by `JSON.parse`) or a bigint. */
export function IsInt(options?: ConstraintOptions): ConstraintDecorator {
  return constraint({
    kind: 'IsInt',
    nullPasses: true,
    accepts: isNumeric,
    typeMessage: 'must be a finite number',
    isValid: (v) => typeof v === 'bigint' || Number.isSafeInteger(v),
    message: customMessage(options, 'IsInt') ?? 'must be an integer',
    schema: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  });
}

// WHATWG HTML "valid e-mail address" (the browser's <input type=email> rule). Anchored and with
// bounded label repetition, so it runs in linear time; the length caps (RFC 5321 §4.5.3.1) run first.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * A well-formed e-mail address (WHATWG HTML rule; at most 254 characters, local part at most 64).
 * @example
 * class CreateUser { \@NotNull() \@Email() email!: string; }
 */
export function Email(options?: ConstraintOptions): ConstraintDecorator {
  return constraint({
    kind: 'Email',
    nullPasses: true,
    accepts: isString,
    typeMessage: 'must be a string',
    isValid: (v) => {
      const s = v as string;
      const at = s.indexOf('@');
      return s.length <= 254 && at > 0 && at <= 64 && EMAIL.test(s);
    },
    message: customMessage(options, 'Email') ?? 'must be a well-formed email address',
    // The same rule: the look-ahead caps the local part at 64 characters.
    schema: { type: 'string', format: 'email', maxLength: 254, pattern: `^(?=[^@]{1,64}@)${EMAIL.source.slice(1)}` },
  });
}

/**
 * The WHOLE string must match `regex` (Bean Validation semantics: anchors are implied). The
 * second argument is a message or an options object.
 * @example
 * class Order { \@Pattern(/ORD-\d+/, 'must look like ORD-123') orderNumber!: string; }
 */
export function Pattern(regex: RegExp | string, options?: string | ConstraintOptions): ConstraintDecorator {
  const source = typeof regex === 'string' ? regex : regex.source;
  // Drop g/y: a stateful lastIndex would make `test` alternate between true and false across calls.
  const flags = typeof regex === 'string' ? '' : regex.flags.replace(/[gy]/g, '');
  const whole = new RegExp(`^(?:${source})$`, flags);
  const opts = typeof options === 'string' ? { message: options } : options;
  return constraint({
    kind: 'Pattern',
    nullPasses: true,
    accepts: isString,
    typeMessage: 'must be a string',
    isValid: (v) => whole.test(v as string),
    message: customMessage(opts, 'Pattern') ?? `must match "${source}"`,
    // JSON Schema patterns are unanchored ECMA-262 regexes without flags: only `u` carries over.
    schema: flags === '' || flags === 'u' ? { type: 'string', pattern: whole.source } : { type: 'string' },
  });
}

/**
 * Validates a nested object with its class's constraints. The class comes from `design:type` or
 * from `type`; an array property needs `Valid(ElementType)` and validates every element.
 * Null and undefined pass (add `NotNull()` to require the value). On a method parameter it
 * changes nothing: the entity is always validated.
 * @example
 * class Order { \@Valid() customer!: Customer; \@Size({ min: 1 }) \@Valid(Item) items!: Item[]; }
 */
export function Valid(type?: Constructor): ConstraintDecorator {
  return nested(type);
}

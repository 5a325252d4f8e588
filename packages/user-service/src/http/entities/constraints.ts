/**
 * The service's field rules as validation decorators, built on the domain's own predicates
 * (domain/users/validation.ts) and worded with the domain's messages, so a 400 from the pipeline's
 * VALIDATION slot reads exactly like one from the domain (`{field: 'firstName', message: 'size
 * must be between 2 and 50'}`). Each rule reports one message per field as the domain does: a
 * value of the wrong type gets one `must be a string` / `must be an integer` (the pipeline
 * reports a shared type message once), and a blank name only `must not be blank`.
 *
 * Each constraint's `schema` is the JSON Schema 2020-12 fragment of the same rule, for the
 * OpenAPI document; where a fragment alone is wider or narrower than its check, the fragments of
 * the composite together are equivalent to the checks together (noted at each one).
 */
import { defineConstraint, NotNull, type ConstraintDecorator } from '@jaxrs-node/pipeline';
import {
  codePointLength,
  EMAIL_LOCAL_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  EMAIL_PATTERN,
  FORBIDDEN_CHARACTERS,
  isValidEmail,
} from '../../domain/users/validation.js';

const isString = (v: unknown): boolean => typeof v === 'string';
const isBlank = (s: string): boolean => s.trim() === '';
const STRING = { accepts: isString, typeMessage: 'must be a string' } as const;

/**
 * Applies several property decorators as if written one above the other in this order
 * (constraint decorators prepend themselves, and legacy decorators run bottom-up).
 */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (let i = decorators.length - 1; i >= 0; i--) decorators[i]!(target, key);
  };
}

/**
 * Absent or `null` is `is required` (the domain's wording of `@NotNull`).
 * @example
 * class UserInput { \@Required() \@EmailAddress() email!: string; }
 */
export function Required(): ConstraintDecorator {
  return NotNull({ message: 'is required' });
}

/**
 * In an RFC 7396 merge patch `null` removes a member; a member every user has may not be
 * removed (`is required`, as the domain says of the merged result). Absent passes: the member is
 * left as it is.
 * @example
 * class UserPatch { \@NotRemoved() \@EmailAddress() email?: string; }
 */
export const NotRemoved = defineConstraint<unknown>({
  name: 'NotRemoved',
  message: 'is required',
  checksAbsent: true,
  check: (v) => v !== null,
});

// Counts UTF-16 units like the domain; the fragment's code points agree on ASCII, and EmailFormat
// admits ASCII only.
const EmailLength = defineConstraint<string>({
  name: 'EmailLength',
  message: `size must be at most ${EMAIL_MAX_LENGTH}`,
  ...STRING,
  check: (v) => v.length <= EMAIL_MAX_LENGTH,
  schema: { type: 'string', maxLength: EMAIL_MAX_LENGTH },
});

// Leaves over-long values to EmailLength (one message, as the domain gives); the look-ahead is
// the domain's cap on the local part.
const EmailFormat = defineConstraint<string>({
  name: 'EmailFormat',
  message: 'must be a well-formed email address',
  ...STRING,
  check: (v) => v.length > EMAIL_MAX_LENGTH || isValidEmail(v),
  schema: { type: 'string', format: 'email', pattern: `^(?=[^@]{1,${EMAIL_LOCAL_MAX_LENGTH}}@)${EMAIL_PATTERN.source.slice(1)}` },
});

/**
 * An e-mail address the service accepts (`isValidEmail`: dot-atom local part of at most 64
 * characters, a dotted LDH domain, at most 254 characters). Absent and `null` pass.
 * @example
 * class VariantUserInput { \@Required() \@EmailAddress() email!: string; }
 */
export function EmailAddress(): PropertyDecorator {
  return stacked(EmailLength(), EmailFormat());
}

const NotBlankText = defineConstraint<string>({
  name: 'NotBlankText',
  message: 'must not be blank',
  ...STRING,
  check: (v) => !isBlank(v),
  // ECMA-262 `\S` is the complement of what `trim()` removes.
  schema: { type: 'string', pattern: '\\S' },
});

// Blank values are NotBlankText's alone (the domain reports nothing else for them).
const TextLength = defineConstraint<string, [min: number, max: number]>({
  name: 'TextLength',
  message: (min, max) => `size must be between ${min} and ${max}`,
  ...STRING,
  check: (v, min, max) => {
    if (isBlank(v)) return true;
    const length = codePointLength(v); // JSON Schema counts code points too
    return length >= min && length <= max;
  },
  schema: (min, max) => ({ type: 'string', minLength: min, maxLength: max }),
});

// The domain's character class negated; JSON Schema patterns are read in Unicode mode (a
// well-formed surrogate pair is one code point, so only unpaired surrogates are excluded).
const PrintableText = defineConstraint<string>({
  name: 'PrintableText',
  message: 'must not contain control characters or unpaired surrogates',
  ...STRING,
  check: (v) => isBlank(v) || !FORBIDDEN_CHARACTERS.test(v),
  schema: { type: 'string', pattern: `^[^${FORBIDDEN_CHARACTERS.source.slice(1, -1)}]*$` },
});

/**
 * A name: not blank, `min`..`max` code points, no control characters or unpaired surrogates
 * (the domain's `checkText`). Absent and `null` pass.
 * @example
 * class UserInput { \@Required() \@Name(2, 50) firstName!: string; }
 */
export function Name(min: number, max: number): PropertyDecorator {
  return stacked(NotBlankText(), TextLength(min, max), PrintableText());
}

/**
 * A JSON integer from `min` to `max`; anything else that is present is `must be an integer`
 * (`"30"`, `30.5`, and `1e400`, which parses to Infinity).
 * @example
 * class UserInput { \@IntegerBetween(18, 100) age?: number | null; }
 */
export const IntegerBetween = defineConstraint<number, [min: number, max: number]>({
  name: 'IntegerBetween',
  message: (min, max) => `must be between ${min} and ${max}`,
  accepts: (v) => typeof v === 'number' && Number.isInteger(v),
  typeMessage: 'must be an integer',
  check: (v, min, max) => v >= min && v <= max,
  schema: (min, max) => ({ type: 'integer', minimum: min, maximum: max }),
});

/**
 * An array of `min` to `max` elements.
 * @example
 * class NewOrder { \@Required() \@ItemCount(1, 100) \@ArrayOf(OrderLine) items!: OrderLine[]; }
 */
export const ItemCount = defineConstraint<readonly unknown[], [min: number, max: number]>({
  name: 'ItemCount',
  message: (min, max) => `must contain between ${min} and ${max} items`,
  accepts: (v) => Array.isArray(v),
  typeMessage: 'must be an array',
  check: (v, min, max) => v.length >= min && v.length <= max,
  schema: (min, max) => ({ type: 'array', minItems: min, maxItems: max }),
});

/**
 * One of `values`; absent, `null` and every other value get `must be one of A, B, C`.
 * @example
 * class OrderStatusChange { \@OneOf(ORDER_STATUSES) status!: OrderStatus; }
 */
export const OneOf = defineConstraint<unknown, [values: readonly string[]]>({
  name: 'OneOf',
  message: (values) => `must be one of ${values.join(', ')}`,
  checksAbsent: true,
  check: (v, values) => typeof v === 'string' && values.includes(v),
  schema: (values) => ({ type: 'string', enum: [...values] }),
});

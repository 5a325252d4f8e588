/**
 * Pure validation of user request bodies. Nothing here throws or touches storage: each function
 * returns every violation it found, so the service can answer one 400 that lists them all.
 *
 * Only whitelisted fields are read, and only as OWN properties; the validated value is a fresh
 * object, never the request JSON (a merge of request JSON is how prototype pollution starts).
 * Unknown fields and server-owned fields (id, roles, status, createdAt, updatedAt, fullName,
 * birthDate) are ignored.
 */
import { isJsonObject, ownField, type UserInput, type ValidationResult, type VariantUserInput, type Violation } from './model.js';

/** Client-controlled user fields, in representation order. */
export const USER_INPUT_FIELDS = ['email', 'firstName', 'lastName', 'age'] as const;

/** RFC 5321 path limit; also keeps the regex below on short inputs. */
export const EMAIL_MAX_LENGTH = 254;
export const EMAIL_LOCAL_MAX_LENGTH = 64;
export const FIRST_NAME_MIN = 2;
export const NAME_MAX = 50;
export const AGE_MIN = 18;
export const AGE_MAX = 100;
/** A variant `name` holds "first last": 50 + 1 + 50. */
export const VARIANT_NAME_MAX = 101;

/**
 * Dot-atom local part and LDH domain labels with at least one dot (RFC 5322 §3.4.1 without quoted
 * strings or comments). Every repetition is separated by a literal character absent from the
 * repeated class, so matching is linear: no ReDoS even without the length cap.
 */
export const EMAIL_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/**
 * C0 controls, DEL and unpaired surrogates (in `u` mode a well-formed pair is one code point and
 * does not match). They make the XML view invalid and have no business in a name.
 */
export const FORBIDDEN_CHARACTERS = /[\u0000-\u001F\u007F\uD800-\uDFFF]/u;

/** True when `value` is an e-mail address this service accepts. */
export function isValidEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(value)) return false;
  return value.indexOf('@') <= EMAIL_LOCAL_MAX_LENGTH;
}

/** Length in Unicode code points (what JSON Schema `maxLength` counts), without allocating. */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

function checkEmail(value: unknown, out: Violation[]): string | undefined {
  if (value === undefined || value === null) return void out.push({ field: 'email', message: 'is required' });
  if (typeof value !== 'string') return void out.push({ field: 'email', message: 'must be a string' });
  if (value.length > EMAIL_MAX_LENGTH) {
    return void out.push({ field: 'email', message: `size must be at most ${EMAIL_MAX_LENGTH}` });
  }
  if (!isValidEmail(value)) return void out.push({ field: 'email', message: 'must be a well-formed email address' });
  return value;
}

function checkText(field: string, value: unknown, min: number, max: number, out: Violation[]): string | undefined {
  if (value === undefined || value === null) return void out.push({ field, message: 'is required' });
  if (typeof value !== 'string') return void out.push({ field, message: 'must be a string' });
  if (value.trim() === '') return void out.push({ field, message: 'must not be blank' });
  const before = out.length;
  // A huge string cannot be within bounds; skip counting it (code points >= UTF-16 units / 2).
  const length = value.length > 2 * max ? Infinity : codePointLength(value);
  if (length < min || length > max) out.push({ field, message: `size must be between ${min} and ${max}` });
  if (FORBIDDEN_CHARACTERS.test(value)) {
    out.push({ field, message: 'must not contain control characters or unpaired surrogates' });
  }
  return out.length === before ? value : undefined;
}

function checkAge(value: unknown, out: Violation[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  // typeof rejects "30"; isInteger rejects 30.5, NaN and Infinity (what `1e400` parses to).
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return void out.push({ field: 'age', message: 'must be an integer' });
  }
  if (value < AGE_MIN || value > AGE_MAX) {
    return void out.push({ field: 'age', message: `must be between ${AGE_MIN} and ${AGE_MAX}` });
  }
  return value;
}

const NOT_AN_OBJECT: Violation = { field: 'body', message: 'must be a JSON object' };

/**
 * Validates a create/replace body. `null` or absent `age` means "no age".
 *
 * @example validateUserInput({ email: 'a@b.io', firstName: 'J', lastName: '' }).violations.length // 2
 */
export function validateUserInput(body: unknown): ValidationResult<UserInput> {
  if (!isJsonObject(body)) return { value: undefined, violations: [{ ...NOT_AN_OBJECT }] };
  const violations: Violation[] = [];
  const email = checkEmail(ownField(body, 'email'), violations);
  const firstName = checkText('firstName', ownField(body, 'firstName'), FIRST_NAME_MIN, NAME_MAX, violations);
  const lastName = checkText('lastName', ownField(body, 'lastName'), 1, NAME_MAX, violations);
  const age = checkAge(ownField(body, 'age'), violations);
  if (violations.length > 0 || email === undefined || firstName === undefined || lastName === undefined) {
    return { value: undefined, violations };
  }
  const value: UserInput = { email, firstName, lastName };
  if (age !== undefined) value.age = age;
  return { value, violations };
}

/** Validates the variant body `{ name, email }`. */
export function validateVariantInput(body: unknown): ValidationResult<VariantUserInput> {
  if (!isJsonObject(body)) return { value: undefined, violations: [{ ...NOT_AN_OBJECT }] };
  const violations: Violation[] = [];
  const name = checkText('name', ownField(body, 'name'), 1, VARIANT_NAME_MAX, violations);
  const email = checkEmail(ownField(body, 'email'), violations);
  if (violations.length > 0 || name === undefined || email === undefined) return { value: undefined, violations };
  return { value: { name, email }, violations };
}

/**
 * Applies an RFC 7396 JSON merge patch to the client-controlled fields of `current`, then
 * validates the result exactly like a PUT body. `null` removes a member (so `age: null` clears
 * the age, `email: null` yields "is required"). Only whitelisted members are looked at, so a
 * `__proto__` member can never reach an assignment.
 */
export function mergePatchUserInput(current: UserInput, patch: unknown): ValidationResult<UserInput> {
  // RFC 7396 §2: a non-object patch replaces the whole target, which is never a valid user.
  if (!isJsonObject(patch)) return { value: undefined, violations: [{ ...NOT_AN_OBJECT }] };
  const merged: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const field of USER_INPUT_FIELDS) {
    if (current[field] !== undefined) merged[field] = current[field];
    if (!Object.hasOwn(patch, field)) continue;
    const member = patch[field];
    if (member === null) delete merged[field];
    else merged[field] = member; // an object member stays an object and fails the type check
  }
  return validateUserInput(merged);
}

/**
 * Derives first/last name from a variant `name`: first word / the rest; a single word is used
 * for both (lastName is required and must not be empty).
 */
export function splitVariantName(name: string): { firstName: string; lastName: string } {
  const words = name.trim().split(/\s+/);
  const firstName = words[0] ?? name;
  const rest = words.slice(1).join(' ');
  return { firstName, lastName: rest === '' ? firstName : rest };
}

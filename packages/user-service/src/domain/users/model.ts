/**
 * Shared vocabulary of the user domain: the stored record shape, the validated input shapes, the
 * clock, the timestamp format and the one way a validation failure leaves the domain.
 *
 * Kept free of service logic so the validation, representation, paging and order modules can all
 * depend on it without depending on each other.
 */
import { BadRequestError } from '@jaxrs-node/pipeline';
import type { StoredRecord } from '../../storage/record-store.js';

/** Name of the record-store collection that holds users (regular and variant). */
export const USERS_COLLECTION = 'users';

/** One rule a request broke. Every violation is reported, never only the first. */
export interface Violation {
  /** Field path, e.g. `email`, `items[1].quantity`, or `body` for the document itself. */
  field: string;
  message: string;
}

/** Source of "now"; injected so tests can pin timestamps. */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();

/** Values a user may have in `status`. Only `ACTIVE` is assigned today (`docs/api.md` rule 9 leaves the values open). */
export type UserStatus = 'ACTIVE' | 'INACTIVE';

/**
 * A user as kept in the record store. Variant records (created through `/api/users/create`)
 * carry `kind: 'variant'` and the `name` they were created with; their first/last name are derived.
 */
export interface StoredUser extends StoredRecord {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  age?: number;
  status: UserStatus;
  roles: string[];
  createdAt: string;
  updatedAt: string;
  birthDate?: string;
  kind?: 'variant';
  name?: string;
  /** Revision, +1 on every write; the user's entity tag is `"<id>-<rev>"`. Absent on records older than it (0). */
  rev?: number;
}

/** The client-controlled part of a user (POST/PUT body after validation). */
export interface UserInput {
  email: string;
  firstName: string;
  lastName: string;
  age?: number;
}

/** The body of the variant resource `POST /api/users/create` after validation. */
export interface VariantUserInput {
  name: string;
  email: string;
}

/** Outcome of a pure validation: `value` is set exactly when `violations` is empty. */
export interface ValidationResult<T> {
  value: T | undefined;
  violations: Violation[];
}

/**
 * Formats an instant as the service's timestamp: UTC, seconds precision, `Z` suffix
 * (`2024-01-15T10:30:00Z`), which satisfies the `YYYY-MM-DDTHH:MM:SS` prefix of `docs/api.md` rule 10 and
 * RFC 3339 `date-time`. Same length for every year 0000-9999, so strings sort chronologically.
 *
 * @example formatTimestamp(new Date(Date.UTC(2024, 0, 15, 10, 30, 0, 999))) // '2024-01-15T10:30:00Z'
 */
export function formatTimestamp(instant: Date): string {
  const ms = instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('clock returned an invalid Date');
  return instant.toISOString().slice(0, 19) + 'Z';
}

/**
 * The one way validation failures leave the domain: 400 with every violation in `details`,
 * which the error-body writer turns into the non-empty `errors` array of `docs/api.md` rule 37.
 */
export function validationFailed(violations: Violation[]): BadRequestError {
  return new BadRequestError('Validation failed', { details: violations, code: 'VALIDATION_FAILED' });
}

/** Throws {@link validationFailed} unless the result is clean; returns the validated value. */
export function requireValid<T>(result: ValidationResult<T>): T {
  if (result.violations.length > 0 || result.value === undefined) throw validationFailed(result.violations);
  return result.value;
}

/** True for a JSON object (not null, not an array). Null-prototype objects count. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads an OWN property only. Request JSON may carry `__proto__`/`constructor` keys; reading
 * through the prototype chain (or merging) is how pollution starts (OWASP "Prototype Pollution Prevention").
 */
export function ownField(body: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(body, key) ? body[key] : undefined;
}

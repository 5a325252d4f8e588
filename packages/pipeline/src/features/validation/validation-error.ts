import { BadRequestError } from '../../core/http/errors.js';
import type { Validator, Violation } from './compile.js';

/**
 * 400 for an entity that breaks its constraints. `violations` (also `details`, for error-body
 * writers) lists every failed constraint, not only the first.
 * @example
 * throw new ValidationError([{ field: 'email', message: 'must be a well-formed email address' }]);
 */
export class ValidationError extends BadRequestError {
  readonly violations: readonly Violation[];

  constructor(violations: readonly Violation[], message?: string) {
    super(message ?? summarize(violations), { code: 'PIPE_VALIDATION', details: violations });
    this.violations = violations;
  }
}

function summarize(violations: readonly Violation[]): string {
  const first = violations[0];
  if (first === undefined) return 'Validation failed';
  const where = first.field === '' || first.field === 'body' ? 'entity' : first.field;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return `Validation failed: ${where} ${first.message}${more}`;
}

/**
 * Runs a validator from `compileValidator` and throws {@link ValidationError} on any violation.
 * An `undefined` validator (type without constraints) does nothing, so callers need no branch.
 * The caller decides whether an absent optional entity is validated at all.
 * @example
 * validateOrThrow(route.validator, entity); // in the VALIDATION (6000) slot
 */
export function validateOrThrow(validator: Validator | undefined, value: unknown): void {
  if (validator === undefined) return;
  const violations = validator(value);
  if (violations.length > 0) throw new ValidationError(violations);
}

/**
 * An entity's violations as the request sees them: each field under `body` (`body.email`,
 * `body.items[2].quantity`, `body` for the entity itself), beside parameters' `query.size`.
 */
export function entityViolations(violations: readonly Violation[]): Violation[] {
  return violations.map((v) => ({ ...v, field: v.field === '' ? 'body' : v.field.startsWith('[') ? `body${v.field}` : `body.${v.field}` }));
}

/**
 * Validates a request entity in the VALIDATION slot: like {@link validateOrThrow}, with the
 * fields named from the request (`body.email`).
 */
export function validateEntityOrThrow(validator: Validator, value: unknown): void {
  const violations = validator(value);
  if (violations.length > 0) throw new ValidationError(entityViolations(violations));
}

/**
 * Bean-Validation-style constraints for entity classes, compiled once per type at start-up.
 * @example
 * class CreateUser {
 *   \@NotNull() \@Email() email!: string;
 *   \@NotBlank() \@Size({ min: 2, max: 50 }) firstName!: string;
 *   \@Min(18) \@Max(100) \@IsInt() age?: number;
 * }
 */
export { NotNull, NotBlank, Size, Min, Max, IsInt, Email, Pattern, Valid } from './decorators.js';
export type { SizeOptions, BoundOptions } from './decorators.js';
export type { ConstraintOptions } from './constraints.js';
export { compileValidator, MAX_VALIDATION_DEPTH } from './compile.js';
export type { Validator, Violation } from './compile.js';
export { ValidationError, validateOrThrow } from './validation-error.js';

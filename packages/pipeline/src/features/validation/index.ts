/**
 * Bean-Validation-style constraints for entity classes, `@BeanParam` fields and resource method
 * parameters, compiled once at start-up; `defineConstraint` adds custom ones.
 * @example
 * class CreateUser {
 *   \@NotNull() \@Email() email!: string;
 *   \@NotBlank() \@Size({ min: 2, max: 50 }) firstName!: string;
 *   \@Min(18) \@Max(100) \@IsInt() age?: number;
 * }
 */
export { NotNull, NotBlank, Size, Min, Max, IsInt, Email, Pattern, Valid } from './decorators.js';
export type { SizeOptions, BoundOptions } from './decorators.js';
export type { ConstraintDecorator, ConstraintOptions } from './constraints.js';
export { defineConstraint } from './define.js';
export type { ConstraintFactory, ConstraintSpec } from './define.js';
export { compileValidator, MAX_VALIDATION_DEPTH, MAX_VIOLATIONS } from './compile.js';
export type { Validator, Violation } from './compile.js';
export { ValidationError } from './validation-error.js';

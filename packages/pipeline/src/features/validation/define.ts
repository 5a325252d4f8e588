import { constraint, customMessage, type ConstraintDecorator, type ConstraintOptions } from './constraints.js';

/**
 * What a custom constraint is made of (the role of a Bean Validation constraint annotation plus
 * its `ConstraintValidator`). `A` lists the arguments each use passes (`@StartsWith('ORD-')`).
 */
export interface ConstraintSpec<T, A extends readonly unknown[] = []> {
  /** Names the constraint in messages about its misuse, e.g. `Even` for `@Even()`. */
  readonly name: string;
  /** The default message, or one built from the use's arguments (once, at class definition). */
  readonly message: string | ((...args: A) => string);
  /**
   * True when the value satisfies the constraint. Called with a present value only (null and
   * undefined pass, as for every built-in but NotNull and NotBlank: Bean Validation 2.0 §3.4),
   * unless `checksAbsent` is set; values `accepts` rejects never reach it. The arguments after the
   * value are the use's arguments (no default or rest parameters: their count is `check.length - 1`).
   */
  readonly check: (value: T, ...args: A) => boolean;
  /** Type guard run first; a value it rejects gets `typeMessage` instead of the message. */
  readonly accepts?: (value: unknown) => boolean;
  /** Message for a value `accepts` rejects (default: `has the wrong type`). */
  readonly typeMessage?: string;
  /** Also call `check` for null and undefined (a "required"-style constraint). Default false. */
  readonly checksAbsent?: boolean;
  /**
   * The rule as a JSON Schema 2020-12 fragment for present values, or one built from the use's
   * arguments, for the OpenAPI document (`{ multipleOf: 2 }` for `Even`); without it the document
   * shows the constraint's type only. Keep it equivalent to `check`: the document promises it.
   */
  readonly schema?: object | ((...args: A) => object);
}

/**
 * The decorator factory {@link defineConstraint} returns: the use's arguments, then optionally
 * `{ message }` to replace the default message for this use.
 */
export type ConstraintFactory<A extends readonly unknown[] = []> = (...args: A | [...A, ConstraintOptions]) => ConstraintDecorator;

/**
 * Defines a custom constraint, used like the built-ins on entity fields, `@BeanParam` fields and
 * resource method parameters. `check` runs on the request path; everything else (arguments,
 * message) is fixed when the decorator is applied.
 * @example
 * const Even = defineConstraint<number>({ name: 'Even', message: 'must be even', check: (v) => v % 2 === 0 });
 * const StartsWith = defineConstraint<string, [prefix: string]>({
 *   name: 'StartsWith',
 *   message: (prefix) => `must start with "${prefix}"`,
 *   accepts: (v) => typeof v === 'string',
 *   typeMessage: 'must be a string',
 *   check: (v, prefix) => v.startsWith(prefix),
 *   schema: (prefix) => ({ type: 'string', pattern: `^${prefix}` }),   // for the OpenAPI document
 * });
 * class Order { \@Even() quantity!: number; \@StartsWith('ORD-', { message: 'is not an order number' }) ref!: string; }
 * \@GET() list(\@QueryParam('page') \@Even() page: number) {}
 */
export function defineConstraint<T, A extends readonly unknown[] = []>(spec: ConstraintSpec<T, A>): ConstraintFactory<A> {
  const { name, message, check, accepts } = spec;
  if (typeof name !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(name)) {
    throw new TypeError(`defineConstraint(): name must be an identifier such as 'Even', got ${String(name)}`);
  }
  if (typeof check !== 'function') throw new TypeError(`defineConstraint(${name}): check must be a function`);
  if (typeof message !== 'string' && typeof message !== 'function') {
    throw new TypeError(`defineConstraint(${name}): message must be a string or a function of the arguments`);
  }
  if (accepts !== undefined && typeof accepts !== 'function') throw new TypeError(`defineConstraint(${name}): accepts must be a function`);
  const { schema } = spec;
  if (schema !== undefined && (schema === null || (typeof schema !== 'object' && typeof schema !== 'function'))) {
    throw new TypeError(`defineConstraint(${name}): schema must be a JSON Schema object or a function of the arguments`);
  }
  const arity = Math.max(0, check.length - 1);
  const typeMessage = spec.typeMessage ?? 'has the wrong type';
  const nullPasses = spec.checksAbsent !== true;
  return (...all: A | [...A, ConstraintOptions]): ConstraintDecorator => {
    if (all.length > arity + 1) {
      throw new TypeError(`@${name}() takes ${arity} argument(s) and an optional { message }, got ${all.length}`);
    }
    const args = all.slice(0, arity) as unknown as A;
    const options = all.length > arity ? (all[arity] as ConstraintOptions | undefined) : undefined;
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new TypeError(`@${name}(): the argument after its ${arity} argument(s) must be { message }`);
    }
    const fallback = typeof message === 'string' ? message : message(...args);
    if (typeof fallback !== 'string') throw new TypeError(`defineConstraint(${name}): message() must return a string`);
    const fragment = typeof schema === 'function' ? schema(...args) : schema;
    if (fragment !== undefined && (typeof fragment !== 'object' || fragment === null || Array.isArray(fragment))) {
      throw new TypeError(`defineConstraint(${name}): schema() must return a JSON Schema object`);
    }
    const test = arity === 0 ? (check as unknown as (v: unknown) => boolean) : (v: unknown) => check(v as T, ...args);
    return constraint({
      kind: name,
      nullPasses,
      accepts,
      typeMessage,
      isValid: (v) => test(v) === true,
      message: customMessage(options, name) ?? fallback,
      schema: fragment as Readonly<Record<string, unknown>> | undefined,
    });
  };
}

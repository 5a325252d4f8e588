/**
 * How a parameter that does not convert is reported: the field names shared with constraint
 * violations, the 400 `PIPE_PARAM_CONVERSION` and the hook through which validation checks the
 * arguments that did convert.
 */
import { BadRequestError } from '../http/errors.js';

/**
 * How a failure names a parameter: its source and name (`query.size`, `path.id`, `header.x-tenant`,
 * `cookie.sid`, `form.name`); the entity is `body` (its fields `body.email`). Conversion failures
 * and constraint violations use the same names, so one 400 can list both.
 */
export function parameterField(source: string, name: string | undefined): string {
  if (source === 'entity') return 'body';
  return name === undefined ? source : `${source}.${name}`;
}

/** One item of a conversion 400: the shape of a constraint violation (`{ field, message, value? }`). */
export interface ConversionItem {
  readonly field: string;
  readonly message: string;
  readonly value?: string;
}

/**
 * 400 `PIPE_PARAM_CONVERSION`: parameter values that do not convert, one item each in `details`.
 * Thrown by a parameter's converter; the argument resolution (`resolveArguments`, resolve-args.ts) collects
 * every argument's before it answers. `partial` carries a `@BeanParam` instance whose other
 * fields converted, so their constraints can still be checked.
 */
export class ParamConversionError extends BadRequestError {
  declare readonly details: ConversionItem[];
  /** The first failure's message (the error's message adds how many more there are). */
  readonly first: string;
  partial: unknown = undefined;

  constructor(first: string, items: ConversionItem[]) {
    super(first, { code: 'PIPE_PARAM_CONVERSION', details: items });
    this.first = first;
  }
}

/**
 * Adds a resolver's failure to `acc` (the first one starts a fresh error); anything but a
 * conversion failure is thrown on, as before. Only called once a resolver threw.
 */
export function collectConversion(e: unknown, acc: ParamConversionError | undefined): ParamConversionError {
  if (!(e instanceof ParamConversionError)) throw e;
  if (acc === undefined) return new ParamConversionError(e.first, e.details.slice());
  for (const item of e.details) acc.details.push(item);
  return acc;
}

/** The message of a collected conversion 400: the first failure's, plus how many more there are. */
export function finishConversion(acc: ParamConversionError): ParamConversionError {
  const more = acc.details.length - 1;
  if (more > 0) acc.message = `${acc.first} (and ${more} more)`;
  return acc;
}

/**
 * Parameter and `@BeanParam` field constraints (features/validation `compileArgumentsValidator`).
 * With `failures`, some values did not convert: it checks the others only (never the entity,
 * which is not read then) and throws one `ValidationError` listing the failures and the
 * violations together, or returns when there are no violations.
 */
export type ArgumentsValidator = (args: readonly unknown[], failures?: readonly ConversionItem[]) => void;

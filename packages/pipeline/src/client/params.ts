/**
 * Parameter values as the text a request carries (the inverse of the server's conversion,
 * Jakarta REST 3.1 §3.2): a registered `ParamConverter` with `toString` wins; otherwise strings as
 * they are, numbers, bigints and booleans via `String`, dates as ISO 8601, and objects with their
 * own `toString()`. Anything else has no text form and is refused, naming the parameter.
 */
import type { ParamConverterProvider, ParamInfo, TypeToken } from '../core/context/contracts.js';
import { typeName } from '../core/util/type-name.js';

/** Turns one value into text. */
export type ToText = (value: unknown) => string;

/** Does the converter define its own `toString(value)` (every object inherits `Object.prototype.toString`)? */
function ownToString(converter: object): converter is { toString(value: unknown): string } {
  const f = (converter as { toString?: unknown }).toString;
  return typeof f === 'function' && f !== Object.prototype.toString;
}

/** The converter's `toString` for `type` (asked once, at construction), or the built-in text form. */
export function textFor(providers: readonly ParamConverterProvider[], type: TypeToken, info: ParamInfo, where: string): ToText {
  for (const p of providers) {
    const converter = p.getConverter(type, info);
    if (converter === undefined) continue;
    if (ownToString(converter)) return (value) => converter.toString(value);
    break;
  }
  return (value) => paramText(value, where);
}

/**
 * The built-in text form of a value.
 * @example paramText(new Date(0), 'query "since"') // '1970-01-01T00:00:00.000Z'
 */
export function paramText(value: unknown, where: string): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new TypeError(`${where}: an invalid Date has no text form`);
        return value.toISOString();
      }
      const own = (value as { toString?: unknown } | null)?.toString;
      if (typeof own === 'function' && own !== Object.prototype.toString) return (own as () => string).call(value);
      break;
    }
    default:
  }
  throw new TypeError(
    `${where}: a ${value === null ? 'null' : typeName((value as object)?.constructor ?? typeof value)} has no text form: ` +
      'give it a toString() method, or register a ParamConverterProvider whose converter has toString(value)',
  );
}

/** Each value of an argument: none for undefined/null, each element of an array, else the value. */
export function eachValue(value: unknown, text: ToText, out: string[]): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const v of value) if (v !== undefined && v !== null) out.push(text(v));
    return;
  }
  out.push(text(value));
}

/** A user replacer: like `JSON.stringify`'s, with the holder passed explicitly instead of as `this`. */
export type JsonReplacer = (key: string, value: unknown, holder: object) => unknown;

/**
 * JSON output configuration, supplied per entity type by a `ContextResolver<JsonOptions>`
 * (register it with `@ResolvesContext(JsonOptions)`; the JAX-RS "JSON mapper configuration").
 *
 * Order of application for every value: `toJSON()` (Date's gives ISO 8601), then `dateFormat`,
 * then `replacer`, then `omitNulls` on what the replacer returned.
 * @example
 * @Provider() @ResolvesContext(JsonOptions)
 * class Json implements ContextResolver<JsonOptions> {
 *   private readonly options = new JsonOptions({ omitNulls: true, dateFormat: 'epoch-millis' });
 *   getContext() { return this.options; }
 * }
 */
export class JsonOptions {
  /** Spaces of indentation (`JSON.stringify` clamps to 10); absent or 0: compact. */
  indent?: number;
  /** `iso` (default, `Date.prototype.toJSON`) or `epoch-millis` (a number; NaN dates give null). */
  dateFormat?: 'iso' | 'epoch-millis';
  /**
   * Drop object properties whose value is `null`, at any depth. Array elements are kept:
   * removing them would shift indices (Jackson's NON_NULL behaves the same).
   */
  omitNulls?: boolean;
  /** Called for every key/value after the date conversion. */
  replacer?: JsonReplacer;

  constructor(init: Partial<JsonOptions> = {}) {
    // Every field assigned: one hidden class for all options objects.
    this.indent = init.indent;
    this.dateFormat = init.dateFormat;
    this.omitNulls = init.omitNulls;
    this.replacer = init.replacer;
  }
}

type NativeReplacer = (this: unknown, key: string, value: unknown) => unknown;

// Options objects are long-lived (resolvers return the same instance): build each replacer once.
const replacers = new WeakMap<JsonOptions, NativeReplacer | null>();

/**
 * The `JSON.stringify` replacer implementing `options`, or undefined when none is needed (so
 * stringify keeps its fast path). `JSON.stringify` drives the walk, so arbitrarily deep or wide
 * entities cost no recursion of ours.
 */
export function replacerFor(options: JsonOptions): NativeReplacer | undefined {
  let r = replacers.get(options);
  if (r === undefined) {
    r = build(options);
    replacers.set(options, r);
  }
  return r ?? undefined;
}

function build(options: JsonOptions): NativeReplacer | null {
  const epoch = options.dateFormat === 'epoch-millis';
  const omitNulls = options.omitNulls === true;
  const user = options.replacer;
  if (!epoch && !omitNulls && user === undefined) return null;
  return function replace(this: unknown, key: string, value: unknown): unknown {
    const holder = this as Record<string, unknown>;
    let v = value;
    // `value` has already been through Date#toJSON; the holder still has the Date itself.
    if (epoch && typeof v === 'string') {
      const raw = holder[key];
      if (raw instanceof Date) v = raw.getTime();
    }
    if (user !== undefined) v = user(key, v, holder);
    if (omitNulls && v === null && !Array.isArray(holder)) return undefined;
    return v;
  };
}

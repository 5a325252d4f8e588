import type { ParamConverter, ParamConverterProvider, ParamInfo, TypeToken } from '@jaxrs-node/pipeline';

/** Sort direction. */
export type Direction = 'asc' | 'desc';

/** One sort key, parsed from `field,direction` (e.g. `year,desc`). */
export class SortOrder {
  constructor(
    readonly field: string,
    readonly direction: Direction,
  ) {}

  /** Compares two records on this key (strings by locale, numbers numerically). */
  compare(a: Record<string, unknown>, b: Record<string, unknown>): number {
    const x = a[this.field];
    const y = b[this.field];
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return this.direction === 'asc' ? c : -c;
  }

  toString(): string {
    return `${this.field},${this.direction}`;
  }
}

/**
 * Parses `field[,asc|desc]` against a list of sortable fields. Errors are plain `Error`s: the
 * pipeline turns a converter's throw into a 400 naming the parameter, with this message.
 */
export class SortOrderConverter implements ParamConverter<SortOrder> {
  constructor(private readonly fields: ReadonlySet<string>) {}

  fromString(value: string): SortOrder {
    const parts = value.split(',');
    if (parts.length > 2) throw new Error(`expected field,direction but got ${parts.length} parts`);
    const field = parts[0]!.trim();
    const direction = (parts[1] ?? 'asc').trim().toLowerCase();
    if (!this.fields.has(field)) throw new Error(`cannot sort by '${field.slice(0, 40)}'; use one of ${[...this.fields].join(', ')}`);
    if (direction !== 'asc' && direction !== 'desc') throw new Error(`direction must be asc or desc, got '${direction.slice(0, 10)}'`);
    return new SortOrder(field, direction);
  }
}

/**
 * A ParamConverterProvider is asked ONCE PER PARAMETER at start-up ("can you convert this
 * type?"); the converter it returns is then called per request. Returning undefined lets the
 * next provider, then the built-in conversions, answer.
 */
export class SortOrderConverterProvider implements ParamConverterProvider {
  private readonly converter: SortOrderConverter;

  constructor(sortableFields: readonly string[]) {
    this.converter = new SortOrderConverter(new Set(sortableFields));
  }

  getConverter(type: TypeToken, _info: ParamInfo): ParamConverter | undefined {
    return type === SortOrder ? this.converter : undefined;
  }
}

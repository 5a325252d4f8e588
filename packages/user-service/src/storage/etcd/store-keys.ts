/**
 * Key layout of {@link EtcdRecordStore} under its prefix `P` (default `/user-service`):
 *
 * | key                    | value                                             |
 * |------------------------|---------------------------------------------------|
 * | `P/r/<collection>/<id>`| the JSON of the normalised record                 |
 * | `P/n/<collection>`     | the next id not yet reserved (decimal)            |
 * | `P/m`                  | write marker, put by every commit (a unique token)|
 *
 * The id is the last path segment, so a collection name may itself contain `/`.
 *
 * @module
 */
import { prefixRange } from './codec.js';

/**
 * Keys of one store prefix.
 * @example
 * const keys = new EtcdKeys('/user-service');
 * keys.record('users', 1); // '/user-service/r/users/1'
 */
export class EtcdKeys {
  /** Prefix of every key of the store, ending in `/`: what the store watches. */
  readonly all: string;
  /** Prefix of every record key. */
  readonly records: string;
  /** Exclusive end of the record keys, for paged ranges. */
  readonly recordsEnd: Uint8Array;
  /** The write marker. */
  readonly marker: string;
  readonly #counters: string;

  constructor(prefix: string) {
    this.all = `${prefix}/`;
    this.records = `${prefix}/r/`;
    this.recordsEnd = Buffer.from(prefixRange(this.records)[1], 'base64');
    this.marker = `${prefix}/m`;
    this.#counters = `${prefix}/n/`;
  }

  /**
   * The key of a record.
   * @example
   * new EtcdKeys('/svc').record('users', 7); // '/svc/r/users/7'
   */
  record(collection: string, id: number): string {
    return `${this.records}${collection}/${id}`;
  }

  /**
   * The id counter of a collection.
   * @example
   * new EtcdKeys('/svc').counter('users'); // '/svc/n/users'
   */
  counter(collection: string): string {
    return `${this.#counters}${collection}`;
  }

  /**
   * The collection and id of a record key; `undefined` for any other key (counters, the marker,
   * keys written by something else).
   * @example
   * new EtcdKeys('/svc').parseRecord('/svc/r/users/7'); // { collection: 'users', id: 7 }
   */
  parseRecord(key: string): { collection: string; id: number } | undefined {
    if (!key.startsWith(this.records)) return undefined;
    const slash = key.lastIndexOf('/');
    const digits = key.slice(slash + 1);
    if (slash <= this.records.length || !/^[1-9][0-9]{0,15}$/.test(digits)) return undefined;
    const id = Number(digits);
    return Number.isSafeInteger(id) ? { collection: key.slice(this.records.length, slash), id } : undefined;
  }
}

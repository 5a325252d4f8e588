/**
 * The streamed body of GET /api/large-data (`docs/api.md` rule 23 asks for a streamed body and leaves its shape open). The shape
 * chosen is one JSON document, `{"items":[{"id":1,"name":"Item 1","value":…},…],"count":n}`, made
 * item by item as the client reads: memory stays constant whatever `count` is, a slow client
 * slows production (backpressure), and a client that goes away stops it.
 */
import { Readable } from 'node:stream';
import { BadRequestError } from '@jaxrs-node/pipeline';

/** Items produced when the client does not ask for a count. */
export const DEFAULT_LARGE_DATA_COUNT = 1000;
/**
 * Largest count a client may ask for (about 50 MB of JSON). A bigger value is 400 rather than
 * silently clamped, so the document never disagrees with what the client asked for.
 */
export const MAX_LARGE_DATA_COUNT = 1_000_000;

/** Options of {@link largeDataStream}. */
export interface LargeDataOptions {
  /** Number of items, 0 to {@link MAX_LARGE_DATA_COUNT}. */
  count: number;
  /** Aborting it destroys the stream with an `AbortError` (e.g. tie it to the request's close). */
  signal?: AbortSignal;
  /** Items serialised per pushed chunk: fewer syscalls than one push per item. Default 64. */
  itemsPerChunk?: number;
  /** Bytes buffered ahead of the consumer before production pauses. Default 16 KiB. */
  highWaterMark?: number;
}

/** The body stream; `produced` counts items serialised so far (for tests and metrics). */
export class LargeDataStream extends Readable {
  private readonly count: number;
  private readonly itemsPerChunk: number;
  private nextId = 1;
  private started = false;

  constructor(options: LargeDataOptions) {
    super({ highWaterMark: options.highWaterMark ?? 16 * 1024, signal: options.signal });
    if (!Number.isSafeInteger(options.count) || options.count < 0 || options.count > MAX_LARGE_DATA_COUNT) {
      throw new RangeError(`largeDataStream: count must be an integer from 0 to ${MAX_LARGE_DATA_COUNT}`);
    }
    this.count = options.count;
    this.itemsPerChunk = Math.max(1, options.itemsPerChunk ?? 64);
  }

  /** Items serialised so far. */
  get produced(): number {
    return this.nextId - 1;
  }

  // Node calls _read whenever the buffer drops below highWaterMark; producing only here, and only
  // until push() answers false, is what ties production to consumption. After destroy() Node
  // never calls it again, so a client that left costs nothing more.
  override _read(): void {
    while (!this.destroyed) {
      if (this.nextId > this.count) {
        this.push(`${this.started ? '' : '{"items":['}],"count":${this.count}}`);
        this.push(null);
        return;
      }
      let chunk = this.started ? '' : '{"items":[';
      const last = Math.min(this.count, this.nextId + this.itemsPerChunk - 1);
      for (; this.nextId <= last; this.nextId++) {
        chunk += `${this.started ? ',' : ''}${largeDataItem(this.nextId)}`;
        this.started = true;
      }
      if (!this.push(chunk)) return;
    }
  }
}

/**
 * A readable byte stream of the large-data document.
 *
 * @example
 * ```ts
 * const body = largeDataStream({ count: parseLargeDataCount(query.count), signal });
 * pipeline(body, res, () => {}); // destroying res (client gone) destroys body
 * ```
 */
export function largeDataStream(options: LargeDataOptions): LargeDataStream {
  return new LargeDataStream(options);
}

/** The JSON text of item `id`; `value` is a deterministic number so responses are reproducible. */
export function largeDataItem(id: number): string {
  return `{"id":${id},"name":"Item ${id}","value":${((id * 7919) % 10007) / 100}}`;
}

/**
 * The `count` query parameter: absent or empty gives {@link DEFAULT_LARGE_DATA_COUNT}; otherwise a
 * decimal integer from 0 to {@link MAX_LARGE_DATA_COUNT}.
 *
 * @throws BadRequestError (400) for anything else (`-1`, `1e3`, `abc`, `2000000`).
 */
export function parseLargeDataCount(raw?: string): number {
  if (raw === undefined || raw === '') return DEFAULT_LARGE_DATA_COUNT;
  const count = /^[0-9]{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(count <= MAX_LARGE_DATA_COUNT)) {
    throw new BadRequestError(`count must be an integer from 0 to ${MAX_LARGE_DATA_COUNT}`, {
      code: 'LARGE_DATA_BAD_COUNT',
    });
  }
  return count;
}

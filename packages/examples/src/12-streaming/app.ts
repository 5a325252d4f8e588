/**
 * Example 12, streaming: a large export produced incrementally, with backpressure.
 *
 * The method is an async generator of rows (plain objects). The pipeline's built-in writer of
 * streamed items writes each row as it comes, framed for the negotiated type: NDJSON lines
 * (`application/x-ndjson`, the first `@Produces` type, so the default), one JSON array
 * (`Accept: application/json`), or one server-sent event per row (`Accept: text/event-stream`).
 * Rows are pulled only as fast as the socket drains, so a slow client slows the producer down
 * instead of filling memory, and a client that goes away ends the generator (its `finally` runs),
 * so the database cursor it stands for is released. The first row is read before the status line
 * goes out: a cursor that fails at once is a normal error answer, not a cut connection.
 *
 *   curl -s 'localhost:3000/api/export?rows=1000000' | tail -n 1
 *   curl -s -H 'accept: application/json' 'localhost:3000/api/export?rows=3'
 */
import 'reflect-metadata';
import { container as rootContainer, injectable } from 'tsyringe';
import { Application, BadRequestError, DefaultValue, GET, Path, Produces, QueryParam } from '@jaxrs-node/pipeline';

/** What one export did, for logs and tests. */
export interface ExportStats {
  readonly requested: number;
  /** Rows handed to the writer so far. */
  produced: number;
  completed: boolean;
  /** The client went away before the end. */
  cancelled: boolean;
}

/** Records every export; injected into the resource by the container. */
export class ExportMonitor {
  readonly exports: ExportStats[] = [];
}

/** One exported row. */
export interface Row {
  readonly id: number;
  readonly sku: string;
  readonly quantity: number;
}

const PAGE_SIZE = 500;
const MAX_ROWS = 2_000_000;

/** Stands in for a database cursor: one page per round trip. */
async function fetchPage(offset: number, size: number): Promise<Row[]> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return Array.from({ length: size }, (_, i) => ({
    id: offset + i + 1,
    sku: `SKU-${String(offset + i + 1).padStart(8, '0')}`,
    quantity: (offset + i) % 97,
  }));
}

/** One row per item; the writer batches the rows of a page into few, mid-sized writes. */
async function* rowsOf(stats: ExportStats): AsyncGenerator<Row> {
  try {
    for (let offset = 0; offset < stats.requested; offset += PAGE_SIZE) {
      const page = await fetchPage(offset, Math.min(PAGE_SIZE, stats.requested - offset));
      for (const row of page) {
        stats.produced++;
        // Suspends here until the writer asks for more: this is where backpressure acts.
        yield row;
      }
    }
    stats.completed = true;
  } finally {
    // Reached on completion AND when the writer calls return() because the client left.
    if (!stats.completed) stats.cancelled = true;
  }
}

@injectable()
@Path('/api/export')
export class ExportResource {
  constructor(private readonly monitor: ExportMonitor) {}

  @GET()
  @Produces('application/x-ndjson', 'application/json', 'text/event-stream')
  export(@QueryParam('rows') @DefaultValue('100000') rows: number): AsyncGenerator<Row> {
    if (!Number.isSafeInteger(rows) || rows < 0 || rows > MAX_ROWS)
      throw new BadRequestError(`rows must be an integer from 0 to ${MAX_ROWS}`);
    const stats: ExportStats = { requested: rows, produced: 0, completed: false, cancelled: false };
    this.monitor.exports.push(stats);
    // Nothing has been produced yet: a generator runs only when pulled.
    return rowsOf(stats);
  }
}

/** The application; pass a monitor to watch the exports. */
export function createApp(monitor: ExportMonitor = new ExportMonitor()): Application {
  const container = rootContainer.createChildContainer();
  container.registerInstance(ExportMonitor, monitor);
  return new Application({ container, resources: [ExportResource] });
}

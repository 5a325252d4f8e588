/**
 * Example 12, streaming: a large NDJSON export produced incrementally, with backpressure.
 *
 * The method returns an async generator; the built-in stream writer pipes it to the socket with
 * `stream.pipeline`, which pulls the next chunk only when the socket has drained. A slow client
 * therefore slows the producer down instead of filling memory, and a client that goes away ends
 * the generator (its `finally` runs), so the database cursor it stands for is released.
 *
 *   curl -s 'localhost:3000/api/export?rows=1000000' | tail -n 1
 */
import 'reflect-metadata';
import { container as rootContainer, injectable } from 'tsyringe';
import { Application, BadRequestError, DefaultValue, GET, Path, QueryParam, Response } from '@jaxrs-node/pipeline';

/** What one export did, for logs and tests. */
export interface ExportStats {
  readonly requested: number;
  /** Rows handed to the socket so far. */
  produced: number;
  completed: boolean;
  /** The client went away before the end. */
  cancelled: boolean;
}

/** Records every export; injected into the resource by the container. */
export class ExportMonitor {
  readonly exports: ExportStats[] = [];
}

const PAGE_SIZE = 500;
const MAX_ROWS = 2_000_000;

/** Stands in for a database cursor: one page per round trip. */
async function fetchPage(offset: number, size: number): Promise<{ id: number; sku: string; quantity: number }[]> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  return Array.from({ length: size }, (_, i) => ({
    id: offset + i + 1,
    sku: `SKU-${String(offset + i + 1).padStart(8, '0')}`,
    quantity: (offset + i) % 97,
  }));
}

/** One NDJSON chunk per page: few, mid-sized writes are cheaper than one write per row. */
async function* ndjson(stats: ExportStats): AsyncGenerator<string> {
  try {
    for (let offset = 0; offset < stats.requested; offset += PAGE_SIZE) {
      const page = await fetchPage(offset, Math.min(PAGE_SIZE, stats.requested - offset));
      let chunk = '';
      for (const row of page) chunk += `${JSON.stringify(row)}\n`;
      stats.produced = offset + page.length;
      // Suspends here until the consumer asks for more: this is where backpressure acts.
      yield chunk;
    }
    stats.completed = true;
  } finally {
    // Reached on completion AND when the pipeline calls return() because the client left.
    if (!stats.completed) stats.cancelled = true;
  }
}

@injectable()
@Path('/api/export')
export class ExportResource {
  constructor(private readonly monitor: ExportMonitor) {}

  @GET()
  export(@QueryParam('rows') @DefaultValue('100000') rows: number): Response {
    if (!Number.isSafeInteger(rows) || rows < 0 || rows > MAX_ROWS)
      throw new BadRequestError(`rows must be an integer from 0 to ${MAX_ROWS}`);
    const stats: ExportStats = { requested: rows, produced: 0, completed: false, cancelled: false };
    this.monitor.exports.push(stats);
    // Nothing has been produced yet: a generator runs only when pulled.
    return Response.ok(ndjson(stats), 'application/x-ndjson').build();
  }
}

/** The application; pass a monitor to watch the exports. */
export function createApp(monitor: ExportMonitor = new ExportMonitor()): Application {
  const container = rootContainer.createChildContainer();
  container.registerInstance(ExportMonitor, monitor);
  return new Application({ container, resources: [ExportResource] });
}

/**
 * Example 10, custom-body: a MessageBodyWriter for CSV out and a MessageBodyReader for a custom
 * media type in. User providers are tried before the built-in ones.
 *
 *   curl -H 'Accept: text/csv' localhost:3000/api/sales          → CSV
 *   curl localhost:3000/api/sales                                → JSON (the server's preference)
 *   curl localhost:3000/api/sales/summary                        → text/x-summary from the catch-all writer
 *   curl -H 'Content-Type: application/vnd.example.point+text' -d '3,4' localhost:3000/api/points
 *                                                                → {"x":3,"y":4,"distanceFromOrigin":5}
 */
import { Application, Consumes, DefaultValue, GET, Path, POST, Produces, QueryParam, Response } from '@jaxrs-node/pipeline';
import { CsvWriter } from './csv-writer.js';
import { SummaryWriter } from './summary-writer.js';
import { Point, POINT_MEDIA_TYPE, PointReader } from './point-reader.js';

export { CsvWriter } from './csv-writer.js';
export { SummaryWriter } from './summary-writer.js';
export { Point, POINT_MEDIA_TYPE, PointReader } from './point-reader.js';

const SALES = [
  { region: 'north', product: 'Widget, large', units: 12, note: null },
  { region: 'south', product: 'Gadget "Pro"', units: 7, note: '=HYPERLINK("x")' },
];

@Path('/api')
export class SalesResource {
  /** Both representations; the client's `Accept` picks, ties go to the first listed. */
  @GET('/sales')
  @Produces('application/json', 'text/csv')
  sales(@QueryParam('minUnits') @DefaultValue('0') minUnits: number): typeof SALES {
    return SALES.filter((s) => s.units >= minUnits);
  }

  /** Only the catch-all SummaryWriter (`*\/*`) can write this type. */
  @GET('/sales/summary')
  @Produces('text/x-summary')
  summary(): typeof SALES {
    return SALES;
  }

  /** No @Produces: the writers' own `produces` lists are negotiated. */
  @GET('/sales/export')
  exportSales(): typeof SALES {
    return SALES;
  }

  /** The entity parameter's declared type (`Point`) and the request media type choose PointReader. */
  @POST('/points')
  @Consumes(POINT_MEDIA_TYPE)
  addPoint(point: Point): Response {
    return Response.status(201)
      .entity({ x: point.x, y: point.y, distanceFromOrigin: Math.hypot(point.x, point.y) })
      .build();
  }
}

/** The application. */
export function createApp(): Application {
  // SummaryWriter (`*/*`) first on purpose: the more specific CsvWriter still writes text/csv.
  return new Application({ resources: [SalesResource], providers: [new SummaryWriter(), new CsvWriter(), new PointReader()] });
}

/**
 * Example 11, context-resolver: JSON output configured per type by a ContextResolver.
 *
 *   curl localhost:3000/api/events/1   → {"id":1,"action":"login","at":1735689600000}     (epoch millis, null dropped)
 *   curl localhost:3000/api/report     → indented JSON
 *   curl localhost:3000/api/status     → defaults: ISO date, null kept, compact
 */
import { Application, GET, NotFoundError, Path, PathParam, Response } from '@jaxrs-node/pipeline';
import { AUDIT_EVENT_LIST, AuditEvent, JsonConfig, Report } from './json-config.js';

export { AUDIT_EVENT_LIST, AuditEvent, JsonConfig, Report } from './json-config.js';

const T0 = new Date('2025-01-01T00:00:00Z');
const EVENTS = [new AuditEvent(1, 'login', T0, null), new AuditEvent(2, 'export', new Date(T0.getTime() + 60_000), 'alice')];

@Path('/api')
export class ConfiguredResource {
  @GET('/events/{id}')
  event(@PathParam('id') id: number): AuditEvent {
    const event = EVENTS.find((e) => e.id === id);
    if (event === undefined) throw new NotFoundError(`no event ${id}`);
    return event;
  }

  /** An array: give the element type through an explicit entity type token. */
  @GET('/events')
  events(): Response {
    return Response.ok().entity(EVENTS, AUDIT_EVENT_LIST).build();
  }

  @GET('/report')
  report(): Report {
    return new Report('Q1', T0, { north: 12, south: 7 }, null);
  }

  /** A plain object: the resolver has nothing for `Object`, so the defaults apply. */
  @GET('/status')
  status(): object {
    return { status: 'UP', since: T0, maintenance: null };
  }
}

/** The application: the resolver is registered like any provider. */
export function createApp(): Application {
  return new Application({ resources: [ConfiguredResource], providers: [JsonConfig] });
}

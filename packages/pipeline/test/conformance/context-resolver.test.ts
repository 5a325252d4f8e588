// ContextResolver<JsonOptions> (README "ContextResolver"): the JSON writer asks the resolvers for
// options per entity type, so one class can be written indented, without nulls and with
// epoch-millis dates while every other type keeps the compact default.
import { describe, expect, it } from 'vitest';
import {
  Application,
  GET,
  JsonOptions,
  NotFoundError,
  Path,
  Priority,
  ResolvesContext,
  Response,
  type ContextResolver,
  type TypeToken,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const AT = new Date('2024-05-06T07:08:09.010Z');

class Report {
  constructor(
    readonly title: string,
    readonly note: string | null,
    readonly at: Date,
    readonly nested: { gone: null; keep: number; when: Date },
    readonly list: (number | null)[],
  ) {}
}

/** Same shape as Report, different class: must not get Report's options. */
class Summary {
  constructor(
    readonly title: string,
    readonly note: string | null,
    readonly at: Date,
  ) {}
}

/** Options for Audit come from a resolver registered with the `contextType` option. */
class Audit {
  constructor(
    readonly at: Date,
    readonly by: string | null,
  ) {}
}

/** A different configuration type: its resolver must never be asked for JsonOptions. */
class WireConfig {
  indent = 8;
  omitNulls = true;
}

const report = (): Report => new Report('Q2', null, AT, { gone: null, keep: 1, when: AT }, [1, null, 3]);
const fields = { title: 'Q2', note: null, at: AT };

@ResolvesContext(JsonOptions)
class ReportJsonResolver implements ContextResolver<JsonOptions> {
  private readonly options = new JsonOptions({ indent: 2, omitNulls: true, dateFormat: 'epoch-millis' });
  getContext(type: TypeToken): JsonOptions | undefined {
    return type === Report ? this.options : undefined;
  }
}

class AuditJsonResolver implements ContextResolver<JsonOptions> {
  private readonly options = new JsonOptions({ dateFormat: 'epoch-millis' });
  getContext(type: TypeToken): JsonOptions | undefined {
    return type === Audit ? this.options : undefined;
  }
}

@ResolvesContext(WireConfig)
@Priority(1)
class WireConfigResolver implements ContextResolver<WireConfig> {
  getContext(): WireConfig {
    return new WireConfig();
  }
}

@Path('/r')
class ReportResource {
  @GET('report') report(): Report {
    return report();
  }
  @GET('summary') summary(): Summary {
    return new Summary(fields.title, fields.note, fields.at);
  }
  @GET('plain') plain(): unknown {
    return { ...fields };
  }
  @GET('typed') typed(): Response {
    return Response.ok()
      .entity({ ...fields }, Report)
      .build();
  }
  @GET('wrapped') wrapped(): Response {
    return Response.status(201).header('x-wrapped', '1').entity(report()).build();
  }
  @GET('audit') audit(): Audit {
    return new Audit(AT, null);
  }
  @GET('missing') missing(): never {
    throw new NotFoundError('no report');
  }
}

const app = (): Application =>
  new Application({
    resources: [ReportResource],
    providers: [WireConfigResolver, ReportJsonResolver],
    logger: () => undefined,
  }).register(new AuditJsonResolver(), { contextType: JsonOptions });

describe.each(TRANSPORTS)('ContextResolver<JsonOptions> (%s)', (transport) => {
  const send = serveForSuite(transport, () => app());

  it('the resolved class is written indented, without null properties, with epoch-millis dates', async () => {
    const r = await send('/r/report');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.text).toBe(
      JSON.stringify(
        {
          title: 'Q2',
          at: AT.getTime(),
          nested: { keep: 1, when: AT.getTime() },
          list: [1, null, 3],
        },
        null,
        2,
      ),
    );
  });

  it('another class with the same shape keeps the defaults (compact, nulls, ISO dates)', async () => {
    const r = await send('/r/summary');
    expect(r.text).toBe('{"title":"Q2","note":null,"at":"2024-05-06T07:08:09.010Z"}');
  });

  it('plain objects keep the defaults too', async () => {
    expect((await send('/r/plain')).text).toBe('{"title":"Q2","note":null,"at":"2024-05-06T07:08:09.010Z"}');
  });

  it('a declared entity type (Response entityType) selects the options', async () => {
    const r = await send('/r/typed');
    expect(r.text).toBe(JSON.stringify({ title: 'Q2', at: AT.getTime() }, null, 2));
  });

  it('an entity inside a built Response is resolved by its class; status and headers stay', async () => {
    const r = await send('/r/wrapped');
    expect(r.status).toBe(201);
    expect(r.headers['x-wrapped']).toBe('1');
    expect(r.text).toContain('\n  "title": "Q2"');
    expect(r.json()).toEqual({ title: 'Q2', at: AT.getTime(), nested: { keep: 1, when: AT.getTime() }, list: [1, null, 3] });
  });

  it('a resolver registered with the contextType option applies to its own class only', async () => {
    expect((await send('/r/audit')).text).toBe(`{"at":${AT.getTime()},"by":null}`);
  });

  it('a resolver for another context type is never used for JSON (even at a lower priority value)', async () => {
    const r = await send('/r/summary');
    expect(r.text).not.toContain('\n');
    expect(r.json()).toHaveProperty('note', null);
  });

  it('error bodies keep the default JSON', async () => {
    const r = await send('/r/missing');
    expect(r.status).toBe(404);
    expect(r.text.startsWith('{"status":404,')).toBe(true);
  });
});

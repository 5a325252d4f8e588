/**
 * Readers and writers are chosen by how closely their declared media types match (Jakarta REST
 * 3.1 §4.2.1, §4.2.2): `x/y` before `x/*` before `*\/*`, whatever the registration order; then an
 * application's provider before a built-in one; registration order breaks the remaining ties.
 * Over both transports.
 */
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  Application,
  Consumes,
  POST,
  Path,
  Produces,
  GET,
  type MediaType,
  type MessageBodyReader,
  type MessageBodyWriter,
  type TypeToken,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

/** A writer of strings that declares `produces` and signs what it wrote. */
function writer(name: string, produces: string[]): MessageBodyWriter<string> {
  return {
    produces,
    isWriteable: (type: TypeToken) => type === String,
    writeTo: (entity: string) => `${name}:${entity}`,
  };
}

/** A reader of any type that declares `consumes` and says who read the body. */
function reader(name: string, consumes: string[]): MessageBodyReader<{ by: string; text: string }> {
  return {
    consumes,
    isReadable: () => true,
    readFrom: async (_t: TypeToken, _m: MediaType | undefined, input: Readable) => {
      let text = '';
      for await (const c of input) text += String(c);
      return { by: name, text };
    },
  };
}

@Path('/w')
class Words {
  @GET('plain') @Produces('text/plain') plain(): string {
    return 'hi';
  }
  @GET('csv') @Produces('text/csv') csv(): string {
    return 'a,b';
  }
  @GET('bin') @Produces('application/x-thing') bin(): string {
    return 'x';
  }
}

// Each application below registers only the providers its routes need: build() refuses a method
// whose declared media type no registered reader or writer handles (PIPELINE_NO_READER / _WRITER).
@Path('/w')
class Points {
  @POST('point') @Consumes('application/vnd.point') @Produces('application/json') point(body: object): object {
    return body;
  }
}

@Path('/w')
class Plain {
  @GET('plain') @Produces('text/plain') plain(): string {
    return 'hi';
  }
}

describe.each(TRANSPORTS)('reader and writer choice by media-type specificity (%s)', (transport) => {
  describe('writers', () => {
    const send = serveForSuite(transport, () => {
      const app = new Application({ resources: [Words], logger: () => undefined });
      // Registered from the least to the most specific: order must not decide.
      app.register(writer('any', ['*/*']));
      app.register(writer('text-any', ['text/*']));
      app.register(writer('plain', ['text/plain']));
      app.register(writer('plain-second', ['text/plain']));
      return app;
    });

    it('x/y beats x/* and */*; registration order breaks the tie between two x/y writers', async () => {
      expect((await send('/w/plain')).text).toBe('plain:hi');
    });
    it('x/* beats */* when no x/y writer fits', async () => {
      expect((await send('/w/csv')).text).toBe('text-any:a,b');
    });
    it('*/* takes what nothing more specific declares', async () => {
      expect((await send('/w/bin')).text).toBe('any:x');
    });
  });

  describe('readers', () => {
    const send = serveForSuite(transport, () =>
      new Application({ resources: [Points], logger: () => undefined })
        .register(reader('any', ['*/*']))
        .register(reader('application-any', ['application/*']))
        .register(reader('point', ['application/vnd.point'])),
    );

    it('a body of application/vnd.point is read by the reader declaring exactly that type', async () => {
      const r = await send({ method: 'POST', url: '/w/point', headers: { 'content-type': 'application/vnd.point' }, body: '1,2' });
      expect(r.json()).toEqual({ by: 'point', text: '1,2' });
    });
  });

  describe('an application provider before a built-in one of the same specificity', () => {
    const send = serveForSuite(transport, () =>
      // Registered after the built-ins are known: still preferred over the built-in text/plain writer.
      new Application({ resources: [Plain], logger: () => undefined }).register(writer('mine', ['text/plain'])),
    );

    it('writes text/plain strings with the application writer', async () => {
      expect((await send('/w/plain')).text).toBe('mine:hi');
    });
  });
});

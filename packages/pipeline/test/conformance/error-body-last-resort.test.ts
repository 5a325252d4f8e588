/**
 * The last-resort 500 (handling an already-mapped error failed again, e.g. a response filter that
 * throws on every response) still carries the application's error body, serialised without
 * writers; only if the factory itself throws is the fixed body sent. In-process and over a socket.
 */
import { describe, expect, it } from 'vitest';
import { Application, GET, Path, type ContainerResponseFilter, type ErrorBodyFactory } from '../../src/index.js';

@Path('/boom')
class Boom {
  @GET() get(): string {
    throw new Error('first failure');
  }
}

class AlwaysThrows implements ContainerResponseFilter {
  filterResponse(): void {
    throw new Error('second failure');
  }
}

const custom: ErrorBodyFactory = (error, req) => ({ kind: 'custom', status: error.status, path: req.path });
const broken: ErrorBodyFactory = () => {
  throw new Error('factory failure');
};
const newApp = (errorBody: ErrorBodyFactory): Application =>
  new Application({ resources: [Boom], providers: [new AlwaysThrows()], errorBody, logger: () => undefined });

describe('the last-resort 500 uses the application error body', () => {
  it('in-process', async () => {
    const r = await newApp(custom).inject('/boom');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ kind: 'custom', status: 500, path: '/boom' });
  });

  it('over a socket', async () => {
    const app = newApp(custom);
    const { port } = await app.listen(0);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/boom`);
      expect(r.status).toBe(500);
      expect(await r.json()).toEqual({ kind: 'custom', status: 500, path: '/boom' });
    } finally {
      await app.close(100);
    }
  });

  it('falls back to the fixed body when the factory throws', async () => {
    const r = await newApp(broken).inject('/boom');
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ status: 500, error: 'Internal Server Error' });
  });
});

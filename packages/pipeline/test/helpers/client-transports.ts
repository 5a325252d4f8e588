import { afterAll, beforeAll } from 'vitest';
import type { Application } from '../../src/index.js';
import { Client, type ClientOptions } from '../../src/client/index.js';

/** The two ways a client reaches an application: `inject()` in-process, or undici over a loopback socket. */
export const CLIENT_TRANSPORTS = ['in-process', 'socket'] as const;
export type ClientTransport = (typeof CLIENT_TRANSPORTS)[number];

/** What a suite gets from {@link serveForClients}. */
export interface ClientSuite {
  /** The application, once `beforeAll` built it. */
  app(): Application;
  /** A new client of the application over the suite's transport (closed in `afterAll`). */
  client(options?: ClientOptions): Client;
}

/**
 * Serves `makeApp()` for the tests of the calling `describe` and makes clients of it over
 * `transport`: in-process (`application` option) or over a socket (`baseUrl` of `app.listen(0)`).
 * Call it in a `describe` body; clients made by the tests are closed after the suite, then the app.
 */
export function serveForClients(transport: ClientTransport, makeApp: () => Application | Promise<Application>): ClientSuite {
  let app: Application | undefined;
  let baseUrl = '';
  const clients: Client[] = [];
  beforeAll(async () => {
    app = await makeApp();
    if (transport === 'socket') baseUrl = `http://127.0.0.1:${(await app.listen(0, '127.0.0.1')).port}`;
    else app.build();
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
    if (transport === 'socket') await app?.close(2000);
  });
  return {
    app: () => {
      if (app === undefined) throw new Error('serveForClients: the app starts in beforeAll; use it from tests');
      return app;
    },
    client: (options = {}) => {
      if (app === undefined) throw new Error('serveForClients: the app starts in beforeAll; make clients from tests');
      const c = new Client(transport === 'socket' ? { baseUrl, ...options } : { application: app, ...options });
      clients.push(c);
      return c;
    },
  };
}

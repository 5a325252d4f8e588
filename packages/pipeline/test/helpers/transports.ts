import { request as undiciRequest, Agent } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import type { Application } from '../../src/index.js';

/** A response as both transports report it. */
export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Buffer;
  json<T = any>(): T;
}

export interface TestRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
}

export type Send = (req: TestRequest | string) => Promise<TestResponse>;

export const TRANSPORTS = ['in-process', 'socket'] as const;
export type Transport = (typeof TRANSPORTS)[number];

const agent = new Agent({ keepAliveTimeout: 1000, headersTimeout: 5000, bodyTimeout: 5000 });

/**
 * Starts `app` for a transport and returns a sender plus a stop function. Every conformance test
 * runs once in-process (`inject`) and once over a loopback socket (undici), so both paths agree.
 */
export async function start(app: Application, transport: Transport): Promise<{ send: Send; stop: () => Promise<void> }> {
  if (transport === 'in-process') {
    app.build();
    return {
      send: async (r) => {
        const req = typeof r === 'string' ? { url: r } : r;
        const res = await app.inject({ method: req.method, url: req.url, headers: req.headers, body: req.body });
        return { status: res.status, headers: res.headers, body: res.body, text: res.text(), json: () => res.json() };
      },
      stop: async () => undefined,
    };
  }
  const { port } = await app.listen(0, '127.0.0.1');
  return {
    send: async (r) => {
      const req = typeof r === 'string' ? { url: r } : r;
      const headers: Record<string, string> = { ...req.headers };
      let body: string | Buffer | undefined;
      if (req.body === undefined) body = undefined;
      else if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) body = req.body;
      else {
        body = JSON.stringify(req.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await undiciRequest(`http://127.0.0.1:${port}${req.url}`, {
        method: (req.method ?? 'GET') as 'GET',
        headers,
        body,
        dispatcher: agent,
      });
      const buf = Buffer.from(await res.body.arrayBuffer());
      return {
        status: res.statusCode,
        headers: res.headers as Record<string, string | string[] | undefined>,
        body: buf,
        text: buf.toString('utf8'),
        json: () => JSON.parse(buf.toString('utf8')),
      };
    },
    stop: async () => {
      await app.close(2000);
    },
  };
}

/**
 * Serves one application for every test of the calling `describe` over `transport`: registers a
 * `beforeAll` hook that builds the app with `makeApp` and {@link start}s it, and an `afterAll` hook
 * that stops it, so a conformance suite needs one line instead of its own hooks and variables.
 *
 * Call it directly in a `describe` body (not inside a test or hook). The app is built in the hook,
 * not at the call, so `makeApp` may also assign objects the tests inspect (an audit log, a
 * container) to variables of the suite. The returned {@link Send} forwards to the running app; it
 * rejects with an explanatory error when used before `beforeAll` started the app or after
 * `afterAll` stopped it, rather than failing later on an `undefined` sender.
 *
 * @param transport where requests go: `inject` in-process, or undici over a loopback socket.
 * @param makeApp builds the application; called once per suite, inside `beforeAll`.
 * @returns a sender bound to the suite's application.
 */
export function serveForSuite(transport: Transport, makeApp: () => Application | Promise<Application>): Send {
  let running: { send: Send; stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    running = await start(await makeApp(), transport);
  });
  afterAll(async () => {
    // Cleared first so a send() from a late callback meets the clear error, not a closed server.
    const stopping = running;
    running = undefined;
    await stopping?.stop();
  });
  return async (req) => {
    if (!running) {
      throw new Error(
        `serveForSuite(${transport}): send() was called while the app is not running; it starts in the ` +
          "suite's beforeAll and stops in its afterAll, so send only from tests (or their hooks) of that describe",
      );
    }
    return running.send(req);
  };
}

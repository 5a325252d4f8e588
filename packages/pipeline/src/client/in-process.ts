/**
 * The in-process transport: calls go into `app.inject()` (the whole pipeline, no socket), so a
 * typed client can test an application, or one application call another in the same process.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Application } from '../core/server/application.js';
import type { InjectResponse } from '../core/server/inject.js';
import {
  splitUri,
  streamableBody,
  type AttemptSignal,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/**
 * A transport that runs each request through `app.inject()`. The URI's path and query are the
 * request target and its host the `Host` header, so `UriInfo` and relative `Location` values
 * resolve as they would over a socket. An aborted call stops waiting at once (the application
 * finishes the request on its own); a connection the application destroys mid-body (an error
 * after the first byte) reaches the reader as a reset.
 * @example
 * const users = createClient(UserContract, { transport: inProcess(app), baseUrl: 'http://users.test' });
 */
export function inProcess(app: Application): Transport {
  if (typeof (app as { inject?: unknown } | null)?.inject !== 'function') {
    throw new TypeError('inProcess(app): app must be an Application (something with inject())');
  }
  return new InProcessTransport(app);
}

class InProcessTransport implements Transport {
  constructor(private readonly app: Application) {}

  async dispatch(r: TransportRequest): Promise<TransportResponse> {
    r.signal.throwIfAborted();
    const { origin, path } = splitUri(r.uri);
    const body = streamableBody(r.body);
    const pending = this.app.inject({
      method: r.method,
      url: path,
      headers: { host: origin.slice(origin.indexOf('//') + 2), ...r.headers },
      body,
    });
    const res = await untilAborted(pending, r.signal);
    const headers: IncomingHttpHeaders = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = v;
    return { status: res.status, headers, body: bodyOf(res) };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** `pending`, or a rejection with the signal's reason as soon as it fires. */
function untilAborted<T>(pending: Promise<T>, signal: AttemptSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort);
    pending.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

/** The body as a stream; cut short with a reset when the application destroyed the connection. */
function bodyOf(res: InjectResponse): Readable {
  if (!res.aborted) return Readable.from(res.body.length === 0 ? [] : [res.body]);
  const reset = Object.assign(new Error('The application destroyed the connection (in-process)'), { code: 'ECONNRESET' });
  return Readable.from(
    (async function* () {
      if (res.body.length > 0) yield res.body;
      throw reset;
    })(),
  );
}

import { request } from 'undici';
import type { Application } from '@jaxrs-node/pipeline';

/** A started example: its base URL and a way to stop it. */
export interface Running {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `app` on a free loopback port (a REAL socket, like `main.ts` does). */
export async function listen(app: Application): Promise<Running> {
  const { port } = await app.listen(0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
    },
  };
}

/** What the tests look at in a response. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = any>(): T;
}

/** Options of {@link send}: undici's, minus the body handling we do here. */
export interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A string/Buffer is sent as is; an object as JSON. */
  body?: string | Buffer | object;
}

/** One request over the socket with undici's `request`; the whole body is read. */
export async function send(base: string, path: string, options: SendOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.body === undefined || typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
  else {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${base}${path}`, { method: (options.method ?? 'GET') as 'GET', headers, body });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  const text = bytes.toString('utf8');
  return {
    status: res.statusCode,
    headers: res.headers as Reply['headers'],
    body: bytes,
    text,
    json: () => JSON.parse(text),
  };
}

/**
 * A raw loopback HTTP/1.1 client for the tests that must see the wire itself: which bytes go on
 * which connection and when, what arrives (HEAD and 204 bodies included, which node:http's and
 * undici's clients drop whatever the server sends), and when the server hangs up.
 *
 * Everything is read as latin1, so one character is one byte: `data().length` counts bytes.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One response as it came off the wire; header names lower-cased (a repeated header: the last). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Status and headers of a head block (the status line and header lines, without the blank line). */
function parseHead(head: string): Omit<RawResponse, 'body'> {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(':');
    headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/**
 * Splits `data` at its first blank line: the status and headers before it, and as `body` every
 * byte after it, whatever Content-Length says. For one response on a `Connection: close`
 * connection this is exactly what the server sent after the head. Throws when there is no head.
 */
export function splitResponse(data: string): RawResponse {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(data)}`);
  return { ...parseHead(data.slice(0, end)), body: data.slice(end + 4) };
}

/**
 * The complete responses in `data`, framed by Content-Length (none means an empty body, as in
 * Node's own error replies); a response whose body has not fully arrived is left out.
 */
export function parseResponses(data: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = data;
  for (let end = rest.indexOf('\r\n\r\n'); end >= 0; end = rest.indexOf('\r\n\r\n')) {
    const head = parseHead(rest.slice(0, end));
    const length = Number(head.headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) break;
    out.push({ ...head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/** An open raw connection: the test writes bytes itself and watches what comes back. */
export interface RawConnection {
  socket: Socket;
  /** Resolves with `Date.now()` at the close, so elapsed times leave out the test's own awaits. */
  closed: Promise<number>;
  /** Everything received so far. */
  data(): string;
  /** Resolves once `text` has arrived; rejects if the connection closes first or after `ms`. */
  waitFor(text: string, ms?: number): Promise<void>;
  /** Resolves with the complete responses once there are `count`; rejects as {@link RawConnection.waitFor}. */
  responses(count: number, ms?: number): Promise<RawResponse[]>;
  /**
   * Resolves with everything received once the server closes the connection. Rejects when it
   * closes with an error (a reset) or is still open after `ms` (the socket is then destroyed).
   */
  untilClosed(ms?: number): Promise<string>;
}

/** Opens a raw connection to `127.0.0.1:port` and resolves once it is connected. */
export async function rawConnect(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  // A server that resets the connection is an outcome the tests look at, not a crash.
  socket.on('error', () => undefined);
  let buf = '';
  const wakers = new Set<() => void>();
  socket.on('data', (chunk: string) => {
    buf += chunk;
    for (const w of wakers) w();
  });
  let closedWithError = false;
  const closed = once(socket, 'close').then(([hadError]) => {
    closedWithError = hadError === true;
    return Date.now();
  });

  /** Resolves with `found(buf)` once it is defined, re-checked on every chunk and at the close. */
  const until = <T>(found: () => T | undefined, what: string, ms: number): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let isClosed = false;
      const finish = (err?: Error, value?: T): void => {
        wakers.delete(check);
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value as T);
      };
      const check = (): void => {
        const value = found();
        if (value !== undefined) finish(undefined, value);
        else if (isClosed) finish(new Error(`closed before ${what}: ${JSON.stringify(buf)}`));
      };
      const timer = setTimeout(() => finish(new Error(`no ${what} within ${ms} ms: ${JSON.stringify(buf)}`)), ms);
      void closed.then(() => {
        isClosed = true;
        check();
      });
      wakers.add(check);
      check();
    });

  await once(socket, 'connect');
  return {
    socket,
    closed,
    data: () => buf,
    waitFor: (text, ms = 3000) => until(() => (buf.includes(text) ? true : undefined), JSON.stringify(text), ms).then(() => undefined),
    responses: (count, ms = 3000) =>
      until(
        () => {
          const parsed = parseResponses(buf);
          return parsed.length >= count ? parsed : undefined;
        },
        `${count} complete responses`,
        ms,
      ),
    async untilClosed(ms = 3000) {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        socket.destroy();
      }, ms);
      try {
        await closed;
      } finally {
        clearTimeout(timer);
      }
      if (timedOut) throw new Error(`the server did not close the connection within ${ms} ms: ${JSON.stringify(buf)}`);
      if (closedWithError) throw new Error(`the connection was reset: ${JSON.stringify(buf)}`);
      return buf;
    },
  };
}

/**
 * Connects, writes `request` and resolves with everything received once the server closes the
 * connection (send `Connection: close`, or a request the server answers by closing); rejects as
 * {@link RawConnection.untilClosed}.
 */
export async function rawRoundTrip(port: number, request: string, ms = 3000): Promise<string> {
  const c = await rawConnect(port);
  c.socket.write(request, 'latin1');
  return c.untilClosed(ms);
}

/**
 * A loopback `text/event-stream` client for the server-sent events tests: it reads the response
 * head, undoes the chunked framing and parses the events as they arrive (WHATWG HTML §9.2.6), so a
 * test waits for an event (or a heartbeat comment, or the end) instead of sleeping. Events are kept
 * parsed, not as raw bytes, so a client that receives megabytes stays cheap.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';

/** One block of the stream up to its blank line: an event, or comments only (a heartbeat). */
export interface SseFrame {
  id?: string;
  event?: string;
  /** The `data:` lines joined with LF; undefined when the frame has none. */
  data?: string;
  retry?: number;
  comments: string[];
}

export interface SseClient {
  readonly socket: Socket;
  /** Status and lower-cased headers, once the head arrived. */
  readonly head: Promise<{ status: number; headers: Record<string, string> }>;
  /** Every frame so far (data dropped beyond `keepData` characters). */
  readonly frames: SseFrame[];
  /** Resolves with the first frame (from index `from`) that `match`es; rejects on close or after `ms`. */
  frame(match: (f: SseFrame) => boolean, ms?: number, from?: number): Promise<SseFrame>;
  /** Resolves once the server ended the stream (last chunk, or the connection closed), with how. */
  readonly ended: Promise<'end' | 'closed'>;
  /** Stops reading: the kernel buffers fill and the server's writes back up. */
  stopReading(): void;
  close(): void;
}

/** Connects, sends `GET path` with `Accept: text/event-stream` (and `headers`), and parses what comes back. */
export async function sseConnect(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  keepData = Number.POSITIVE_INFINITY,
): Promise<SseClient> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n${extra}\r\n`);

  const frames: SseFrame[] = [];
  const wakers = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...wakers]) w();
  };
  let resolveHead!: (h: { status: number; headers: Record<string, string> }) => void;
  const head = new Promise<{ status: number; headers: Record<string, string> }>((r) => (resolveHead = r));
  let resolveEnded!: (how: 'end' | 'closed') => void;
  const ended = new Promise<'end' | 'closed'>((r) => (resolveEnded = r));
  let isClosed = false;

  let raw: Buffer = Buffer.alloc(0);
  let inBody = false;
  const decoder = new StringDecoder('utf8');
  let text = '';
  let frame: SseFrame = { comments: [] };

  const parseText = (): void => {
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      const line = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (line === '') {
        frames.push(frame);
        frame = { comments: [] };
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === '') frame.comments.push(value);
      else if (field === 'data') {
        const joined = frame.data === undefined ? value : `${frame.data}\n${value}`;
        frame.data = joined.length > keepData ? joined.slice(0, keepData) : joined;
      } else if (field === 'id') frame.id = value;
      else if (field === 'event') frame.event = value;
      else if (field === 'retry') frame.retry = Number(value);
    }
  };

  socket.on('data', (chunk: Buffer) => {
    raw = raw.length === 0 ? chunk : Buffer.concat([raw, chunk]);
    if (!inBody) {
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const h: Record<string, string> = {};
      for (const l of lines) h[l.slice(0, l.indexOf(':')).trim().toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolveHead({ status: Number(statusLine.split(' ')[1]), headers: h });
      raw = raw.subarray(end + 4);
      inBody = true;
    }
    // Chunked framing: size line, bytes, CRLF; a zero size ends the body.
    for (;;) {
      const lineEnd = raw.indexOf('\r\n');
      if (lineEnd < 0) break;
      const size = parseInt(raw.subarray(0, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        resolveEnded('end');
        break;
      }
      if (raw.length < lineEnd + 2 + size + 2) break;
      text += decoder.write(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
      raw = raw.subarray(lineEnd + 2 + size + 2);
    }
    parseText();
    wake();
  });
  socket.on('close', () => {
    isClosed = true;
    resolveEnded('closed');
    wake();
  });

  return {
    socket,
    head,
    frames,
    ended,
    frame: (match, ms = 5000, from = 0) =>
      new Promise<SseFrame>((resolve, reject) => {
        const check = (): void => {
          for (let i = from; i < frames.length; i++) {
            if (match(frames[i]!)) {
              done();
              resolve(frames[i]!);
              return;
            }
          }
          if (isClosed) {
            done();
            reject(new Error(`closed before the frame arrived: ${JSON.stringify(frames.slice(-5))}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no matching frame within ${ms} ms: ${JSON.stringify(frames.slice(-5))}`));
        }, ms);
        const done = (): void => {
          clearTimeout(timer);
          wakers.delete(check);
        };
        wakers.add(check);
        check();
      }),
    stopReading: () => socket.pause(),
    close: () => socket.destroy(),
  };
}

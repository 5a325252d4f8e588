/**
 * Reading a `/v3/watch` stream: the gateway writes one JSON object per line, `{"result": WatchResponse}`
 * or `{"error": {...}}`. The first result says `created`; a `canceled` one ends the watch (with a
 * `compact_revision` when the start revision was compacted away).
 */
import { EtcdError, gatewayError } from './errors.js';
import { array, int64, keyValue, MalformedAnswer, object, type KeyValue } from './codec.js';

/** One change seen by a watch. For a delete, `value` is empty and `version` 0. */
export interface WatchEvent extends KeyValue {
  readonly type: 'put' | 'delete';
}

/**
 * Splits a byte stream into lines, failing with `RESPONSE_TOO_LARGE` when one line passes `max`
 * bytes (so a stream never buffers without bound).
 * @example
 * for await (const line of lines(body, 1 << 20, endpoint)) console.log(JSON.parse(line));
 */
export async function* lines(chunks: AsyncIterable<Buffer>, max: number, endpoint: string): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      pending.push(chunk.subarray(from, nl));
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      from = nl + 1;
      if (line.trim() !== '') yield line;
    }
    size += chunk.length - from;
    if (size > max) throw new EtcdError('RESPONSE_TOO_LARGE', `watch message larger than ${max} bytes`, { endpoint, retriable: false });
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
}

/**
 * The events of one stream line (none for `created` or progress lines); throws for an error
 * line or a canceled watch.
 * @example
 * const events = watchLine('{"result":{"events":[{"kv":{"key":"YQ==","mod_revision":"5"}}]}}', endpoint);
 */
export function watchLine(line: string, endpoint: string): WatchEvent[] {
  let message: Record<string, unknown>;
  try {
    message = object(JSON.parse(line), 'watch message');
  } catch (err) {
    throw new EtcdError('BAD_RESPONSE', 'unreadable watch message', { endpoint, retriable: false, cause: err });
  }
  try {
    if (message.error !== undefined) {
      // grpc-gateway's stream error: {"grpc_code", "http_code", "message", "http_status"}.
      const { grpc_code: code, http_code: status, message: said } = object(message.error, 'watch error');
      throw gatewayError(endpoint, typeof status === 'number' ? status : 500, JSON.stringify({ code, message: said }));
    }
    const result = object(message.result, 'watch result');
    if (result.canceled === true) {
      const compactRevision = int64(result.compact_revision, 'compact_revision');
      const reason = typeof result.cancel_reason === 'string' ? result.cancel_reason : 'watch canceled by the server';
      if (compactRevision > 0) {
        throw new EtcdError('COMPACTED', `start revision compacted, oldest is ${compactRevision}`, {
          endpoint,
          retriable: false,
          compactRevision,
        });
      }
      throw new EtcdError('WATCH_CANCELED', reason, { endpoint, retriable: false });
    }
    return array(result.events, 'events').map((raw) => {
      const event = object(raw, 'event');
      return { type: event.type === 'DELETE' ? 'delete' : 'put', ...keyValue(event.kv) };
    });
  } catch (err) {
    if (err instanceof MalformedAnswer) throw new EtcdError('BAD_RESPONSE', err.message, { endpoint, retriable: false, cause: err });
    throw err;
  }
}

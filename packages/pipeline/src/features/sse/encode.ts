/**
 * An event's bytes: its data written by the application's `MessageBodyWriter`s for its media type,
 * then framed as `text/event-stream`. Remembered per event, so a broadcast to thousands of streams
 * of one application writes and frames it once and every stream queues the same Buffer.
 */
import { Buffer } from 'node:buffer';
import type { Body, MessageBodyWriter, TypeToken } from '../../core/context/contracts.js';
import { InternalServerError } from '../../core/http/errors.js';
import { APPLICATION_JSON, TEXT_PLAIN, type MediaType } from '../../core/http/media-type.js';
import type { Response } from '../../core/http/response.js';
import type { Exchange } from '../../core/internal/exchange.js';
import { chooseProvider } from '../../core/internal/provider-choice.js';
import { mediaTypeKey } from '../../core/internal/provider-cache.js';
import { isThenable } from '../../core/util/thenable.js';
import { typeName } from '../../core/util/type-name.js';
import { frameOf, type OutboundSseEvent } from './event.js';

/** The last frame made of an event, with the writers (an application's body providers) it was made with. */
const frames = new WeakMap<OutboundSseEvent, { readonly writers: object; readonly frame: Buffer | Promise<Buffer> }>();

/**
 * The bytes of `event` for the stream of `ex` (whose `response` writers see in their context);
 * a promise when a writer is asynchronous. Throws (or rejects) when no writer fits the data or a
 * writer fails.
 */
export function encodeEvent(ex: Exchange, response: Response, event: OutboundSseEvent): Buffer | Promise<Buffer> {
  const writers = ex.rt.body;
  const cached = frames.get(event);
  if (cached !== undefined && cached.writers === writers) return cached.frame;
  const frame = makeFrame(ex, response, event);
  frames.set(event, { writers, frame });
  return frame;
}

function makeFrame(ex: Exchange, response: Response, event: OutboundSseEvent): Buffer | Promise<Buffer> {
  const value = event.data;
  if (value === undefined) return Buffer.from(frameOf(event, undefined));
  const mediaType = event.mediaType ?? (typeof value === 'string' ? TEXT_PLAIN : APPLICATION_JSON);
  const type = typeOfValue(value);
  const written = writerFor(ex, type, mediaType).writeTo(value, type, mediaType, { request: ex, response });
  if (isThenable(written)) return Promise.resolve(written).then((body) => framed(event, body, type, mediaType));
  return framed(event, written, type, mediaType);
}

function framed(event: OutboundSseEvent, body: Body, type: TypeToken, mediaType: MediaType): Buffer {
  if (typeof body === 'string') return Buffer.from(frameOf(event, body));
  if (body instanceof Uint8Array)
    return Buffer.from(frameOf(event, Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')));
  throw new TypeError(
    `The MessageBodyWriter for ${typeName(type)} as ${mediaType.essence} returned a stream: event data must be written as text or bytes`,
  );
}

/** The class of a data value, from its prototype (never an own `constructor` property). */
function typeOfValue(value: unknown): TypeToken {
  if (typeof value === 'string') return String;
  if (value === null) return Object;
  const proto = Object.getPrototypeOf(value) as { constructor?: TypeToken } | null;
  return proto?.constructor ?? Object;
}

/**
 * The writer for (type, media type), as the response writer chooses it and sharing its cache;
 * unlike it, never recorded in the request's trace (a long stream would grow it without bound).
 */
function writerFor(ex: Exchange, type: TypeToken, mediaType: MediaType): MessageBodyWriter {
  const body = ex.rt.body;
  const key = mediaTypeKey(mediaType);
  let writer = body.writerChoices.get(type, key);
  if (writer === undefined) {
    writer = chooseProvider(
      body.writers,
      (w) => w.isWriteable(type, mediaType),
      (w) => w.produces,
      mediaType,
      body.builtin,
    );
    if (writer === undefined) {
      throw new InternalServerError(`No MessageBodyWriter for event data of type ${typeName(type)} as ${mediaType.essence}`, {
        code: 'PIPE_NO_WRITER',
      });
    }
    body.writerChoices.set(type, key, writer);
  }
  return writer;
}

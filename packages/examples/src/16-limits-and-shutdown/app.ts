/**
 * Example 16, limits and shutdown: every operating limit set explicitly, and a graceful close.
 *
 *   curl localhost:3000/api/limits                          → the limits in force and the defaults
 *   curl -i -H 'content-type: application/json' -d '{"text":"hi"}' localhost:3000/api/notes   → 201
 *   curl -i -H 'content-type: application/json' \
 *     -d "{\"text\":\"$(head -c 5000 /dev/zero | tr '\0' x)\"}" localhost:3000/api/notes       → 413
 *   curl 'localhost:3000/api/slow?ms=2000'   then Ctrl-C the server: still 200, then it exits
 *   curl 'localhost:3000/api/slow?ms=8000'   then Ctrl-C the server: cut after 3 s (the deadline)
 *
 * Why set limits explicitly: the defaults suit a generic JSON API; a service that only takes short
 * notes should refuse a 1 MiB body, and its timeouts are part of its contract with the proxy in
 * front of it (`keepAliveTimeout` must exceed the proxy's idle timeout, for instance).
 *
 * Graceful close (`app.close(deadline)`, which `serve()` calls on SIGINT/SIGTERM): the listener
 * stops accepting at once and idle kept-alive connections are closed; requests in flight finish
 * (their responses carry `Connection: close`); a request still arriving on an open connection
 * gets 503 + `Connection: close` + `Retry-After`; whatever still runs at the deadline is cut.
 */
import 'reflect-metadata';
import {
  Application,
  BadRequestError,
  DEFAULT_LIMITS,
  DefaultValue,
  GET,
  NotBlank,
  Path,
  type PipelineLimits,
  POST,
  QueryParam,
  Response,
} from '@jaxrs-node/pipeline';
import { container as rootContainer, injectable } from 'tsyringe';

/**
 * The limits of this service. Every key is set, so nothing changes under us when a library or
 * Node default moves (Node 26 changes `keepAliveTimeout`'s).
 *
 * | limit                         | here    | library default | what happens above it          |
 * |-------------------------------|---------|-----------------|--------------------------------|
 * | `bodyLimit`                   | 4 KiB   | 1 MiB           | 413 `PIPE_BODY_TOO_LARGE`      |
 * | `headersTimeout`              | 5 s     | 10 s            | 408, connection closed         |
 * | `requestTimeout`              | 15 s    | 30 s            | 408, connection closed         |
 * | `keepAliveTimeout`            | 5 s     | 5 s             | idle socket closed             |
 * | `connectionsCheckingInterval` | 1 s     | 1 s             | (granularity of the two 408s)  |
 * | `maxHeaderSize`               | 8 KiB   | 16 KiB          | 431 from node:http             |
 * | `maxRequestsPerSocket`        | 100     | 0 (unlimited)   | socket closed after the 100th  |
 * | `shutdownDeadline`            | 3 s     | 10 s            | `close()` cuts what is left    |
 * | `shutdownDelay`               | 0       | 0               | (served as usual, ready DOWN)  |
 * | `sendTimeout`                 | 20 s    | 60 s            | a stalled connection is cut    |
 */
export const LIMITS: Readonly<PipelineLimits> = Object.freeze({
  // A note is a few hundred bytes: 4 KiB leaves room and refuses anything else before parsing.
  bodyLimit: 4 * 1024,
  // Short: a slowloris client holds a socket for at most this long without finishing its headers.
  headersTimeout: 5_000,
  requestTimeout: 15_000,
  // The default, but pinned (Node 26 changes it). Behind a proxy, set it ABOVE the proxy's idle
  // timeout (ALB: 60 s, so 65 s): the proxy must close idle sockets first, or it may reuse one we
  // have just closed and answer its client with a 502.
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
  maxHeaderSize: 8 * 1024,
  // Spreads long-lived clients over instances after a scale-out.
  maxRequestsPerSocket: 100,
  // Below the orchestrator's grace period (Kubernetes: 30 s) so we exit before SIGKILL.
  shutdownDeadline: 3_000,
  // Behind Kubernetes, a few seconds: readiness DOWN while still serving, before the close (docs/health.md).
  shutdownDelay: 0,
  // A client that stops reading (or sending) for 20 s mid-request loses its connection: it can
  // no longer pin a socket, its buffers and a streamed body's producer.
  sendTimeout: 20_000,
});

/** Upper bound of `/api/slow?ms=`: longer than the shutdown deadline on purpose, so a cut can be seen. */
export const MAX_SLOW_MS = 10_000;

/** What `POST /api/notes` accepts; `bodyLimit` bounds it long before validation runs. */
export class NewNote {
  @NotBlank()
  text!: string;
}

/** A stored note. */
export interface Note {
  id: number;
  text: string;
}

@Path('/api/notes')
export class NotesResource {
  private readonly notes: Note[] = [];

  /** The entity is read only if `Content-Length` is within `bodyLimit` (a chunked body is cut there). */
  @POST()
  create(body: NewNote): Response {
    const note: Note = { id: this.notes.length + 1, text: body.text };
    this.notes.push(note);
    return Response.created(`/api/notes/${note.id}`).entity(note).build();
  }

  @GET()
  list(): Note[] {
    return this.notes;
  }
}

/**
 * How `/api/slow` spends its time. Injected so a test can hold a request in flight for exactly
 * as long as it wants (and know when it started) instead of racing a timer.
 */
export class Pause {
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

@injectable()
@Path('/api/slow')
export class SlowResource {
  constructor(private readonly pause: Pause) {}

  /** Stands for real work (a slow query, an upstream call): what a graceful close waits for. */
  @GET()
  async slow(@QueryParam('ms') @DefaultValue('1000') ms: number): Promise<{ waitedMs: number }> {
    if (!Number.isInteger(ms) || ms < 0 || ms > MAX_SLOW_MS) throw new BadRequestError(`ms must be an integer from 0 to ${MAX_SLOW_MS}`);
    await this.pause.wait(ms);
    return { waitedMs: ms };
  }
}

@Path('/api/limits')
export class LimitsResource {
  /** Answers at once: the limits in force next to the library's defaults. */
  @GET()
  get(): { limits: PipelineLimits; defaults: PipelineLimits } {
    return { limits: LIMITS, defaults: DEFAULT_LIMITS };
  }
}

/** The application with {@link LIMITS}; pass a {@link Pause} to control `/api/slow`. */
export function createApp(pause: Pause = new Pause()): Application {
  const container = rootContainer.createChildContainer();
  container.registerInstance(Pause, pause);
  return new Application({ container, resources: [NotesResource, SlowResource, LimitsResource], limits: LIMITS });
}

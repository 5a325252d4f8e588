import type { IncomingMessage, ServerResponse } from 'node:http';
import { channels } from './diagnostics.js';
import { ContainerRequestContext } from '../context/request-context.js';
import type { Response } from '../http/response.js';
import type { RequestOutcome } from '../context/contracts.js';
import type { RouteMethod } from './model.js';
import type { Runtime } from './runtime.js';

/**
 * The pipeline's private per-request state. It IS the request context users see (one object per
 * request, fixed shape), plus the fields only the lifecycle reads.
 */
export class Exchange extends ContainerRequestContext {
  readonly rt: Runtime;
  /** The matched resource method; undefined until matching succeeds. */
  route: RouteMethod | undefined;
  /** The response being produced (after the method, an abort or a mapper). */
  response: Response | undefined;
  /** An exception mapper already ran: never map again (Processing rules §2). */
  mapped: boolean;
  /** Automatic HEAD: run GET, send its headers, drop the body. */
  isHead: boolean;
  /** Set once the pipeline has finished with the socket (exactly-once accounting). */
  done: boolean;
  /** The error that led to the current response, if any (for diagnostics). */
  error: unknown;
  /** The request target was neither origin-form nor absolute-form (400 after pre-matching). */
  badTarget: boolean;
  /**
   * `performance.now()` when the pipeline took the request, or -1: the clock (~50 ns) is read
   * only while `jaxrs-node:request:finish` has a subscriber or the application has a
   * `RequestListener`, the consumers of the duration.
   */
  readonly startTime: number;
  /** What the request listeners asked to be told at the end (undefined: nothing, the usual case). */
  ends: ((outcome: RequestOutcome) => void)[] | undefined;
  /** Response body bytes handed to the socket, counted for request listeners; -1 when not counted. */
  bytesOut: number;

  constructor(rt: Runtime, req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string) {
    super(req, res, req.method ?? 'GET', path, rawQuery, rt.tracing);
    this.rt = rt;
    this.route = undefined;
    this.response = undefined;
    this.mapped = false;
    this.isHead = false;
    this.done = false;
    this.error = undefined;
    this.badTarget = false;
    this.startTime = channels.finish.hasSubscribers || rt.listeners !== undefined ? performance.now() : -1;
    this.ends = undefined;
    this.bytesOut = -1;
  }

  /** The application's base path: read from the runtime, no field per request. */
  override get basePath(): string {
    return this.rt.basePath ?? '';
  }
}

/**
 * The request objects behind `@jaxrs-node/pipeline/testing`. The core's reader and writer
 * contexts (core/internal/readers.ts, writers.ts) take the pipeline's {@link Exchange} and find the
 * readers, writers and limits on its runtime: building a real Exchange over a small runtime lets
 * the testing helpers run that code itself instead of a copy of it.
 */
import type { ServerResponse } from 'node:http';
import { type Readable, Writable } from 'node:stream';
import 'reflect-metadata'; // before tsyringe, which checks for it at import
import { container as rootContainer } from 'tsyringe';
import { defaultErrorBody } from '../core/server/application.js';
import { DEFAULT_LIMITS } from '../core/internal/defaults.js';
import { Exchange } from '../core/internal/exchange.js';
import { fakeRequest } from '../core/server/inject.js';
import { bodyProviders, splitBodyProviders, type PathEntry } from '../core/internal/model.js';
import type { MessageBodyReader, MessageBodyWriter } from '../core/context/contracts.js';
import type { ContainerRequestContext } from '../core/context/request-context.js';
import { Router } from '../core/routing/router.js';
import type { Runtime } from '../core/internal/runtime.js';
import { defaultProviders } from '../providers/index.js';

// The built-in providers as an Application without ContextResolvers gets them, in the same order.
const builtins = splitBodyProviders(defaultProviders(undefined));
const BUILTIN_READERS: readonly MessageBodyReader[] = builtins.readers;
/** The writers an application registers when it has none of its own. */
export const BUILTIN_WRITERS: readonly MessageBodyWriter[] = builtins.writers;

/**
 * A runtime with only body providers and the default limits: no routes, filters or mappers (the
 * helpers run one component). Testing helpers never send, so nothing is logged or finished here:
 * errors reach the caller as rejections.
 */
function testRuntime(readers: readonly MessageBodyReader[], writers: readonly MessageBodyWriter[]): Runtime {
  return {
    router: new Router<PathEntry>(),
    preMatchFilters: [],
    global: { responseFilters: [], writerInterceptors: [] },
    mappers: [],
    mapperCache: new Map(),
    body: bodyProviders(readers, writers, new Set<object>([...BUILTIN_READERS, ...BUILTIN_WRITERS])),
    container: rootContainer,
    limits: DEFAULT_LIMITS,
    errorBody: defaultErrorBody,
    logError: () => undefined,
    tracing: false,
    state: { inflight: 0, closing: false, stopping: false, onIdle: undefined },
    finish: () => undefined,
  };
}

const defaultRuntime = testRuntime(BUILTIN_READERS, BUILTIN_WRITERS);

/** What {@link createExchange} builds a request from. */
export interface ExchangeInit {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array | Readable;
  remoteAddress?: string;
}

/**
 * An Exchange over the fake request `app.inject()` sends (core's `fakeRequest`): bytes get a
 * Content-Length, a stream without one is chunked. `readers` (default: the built-ins) are the
 * ones the core's reader context will choose from.
 */
export function createExchange(init: ExchangeInit, readers?: readonly MessageBodyReader[]): Exchange {
  const req = fakeRequest(init);
  const url = req.url!;
  const res = new Writable({ write: (_c, _e, cb) => cb() }) as unknown as ServerResponse;
  const q = url.indexOf('?');
  const rt = readers === undefined ? defaultRuntime : testRuntime(readers, BUILTIN_WRITERS);
  return new Exchange(rt, req, res, q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1));
}

/**
 * The Exchange behind a request context. The interceptor must see the caller's own object
 * (`ctx.request` is the request filters saw, properties included), so a context that is not an
 * Exchange cannot be used: copying it would split its properties in two.
 */
export function asExchange(request: ContainerRequestContext): Exchange {
  if (request instanceof Exchange) return request;
  throw new TypeError(
    'The request must be a context from createRequestContext() (the pipeline runs interceptors on its own request object)',
  );
}

/**
 * Makes `ex` choose among `writers`. The core caches writer choices per runtime, so other writers
 * mean another runtime, never a changed one.
 */
export function useWriters(ex: Exchange, writers: readonly MessageBodyWriter[]): void {
  if (ex.rt.body.writers === writers) return;
  // `rt` is readonly for the pipeline, whose runtime never changes; a test context's may, per helper call.
  (ex as { rt: Runtime }).rt = testRuntime(ex.rt.body.readers, writers);
}

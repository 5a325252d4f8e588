/**
 * `@opentelemetry/api`, loaded when the `./otel` entry point is imported: it is an optional peer
 * dependency, so an application that never imports `@jaxrs-node/pipeline/otel` never needs it.
 * Loaded with `require` (the API package ships CommonJS) so that a missing package gives a message
 * that says what to install instead of a bare `ERR_MODULE_NOT_FOUND`. Two copies of the API (an
 * ES module one in the application, this CommonJS one) agree: the API keeps its registered
 * providers and propagator on one global, and its context keys are `Symbol.for` symbols.
 */
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';

/** The API module, as `import * as api from '@opentelemetry/api'` gives it. */
export type OtelApi = typeof Api;

function load(): OtelApi {
  const require = createRequire(import.meta.url);
  try {
    return require('@opentelemetry/api') as OtelApi;
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code !== 'MODULE_NOT_FOUND' || !String(err.message).includes("'@opentelemetry/api")) throw e;
    throw new Error(
      '@jaxrs-node/pipeline/otel needs the package @opentelemetry/api (an optional peer dependency of @jaxrs-node/pipeline): ' +
        'install it next to the pipeline with `npm install @opentelemetry/api` (or `pnpm add @opentelemetry/api`), ' +
        'with an OpenTelemetry SDK to export the spans (see docs/tracing.md)',
      { cause: e },
    );
  }
}

/** The OpenTelemetry API, loaded once when the `./otel` entry point is imported. */
export const otel: OtelApi = load();

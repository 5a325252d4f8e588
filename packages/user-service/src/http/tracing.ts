/**
 * Traces (`TRACING=true`): the pipeline's `@jaxrs-node/pipeline/otel` entry, loaded only then,
 * so that the service starts without `@opentelemetry/api` (an optional peer of the pipeline)
 * when tracing is off. Where the spans go is the operator's OpenTelemetry SDK's business (README
 * "Traces"): without one registered, the API records nothing.
 */
import type { ClientTracing, TracingFeature } from '@jaxrs-node/pipeline/otel';
import { ConfigError } from '../domain/config/app-config.js';

/** The providers tracing adds: the server's feature and the upstream client's span maker. */
export interface Tracing {
  readonly feature: TracingFeature;
  readonly client: ClientTracing;
}

type OtelEntry = typeof import('@jaxrs-node/pipeline/otel');

/**
 * Loads the otel entry; a missing `@opentelemetry/api` is a configuration error that names the
 * package to install (or `TRACING=false`).
 * @example const tracing = config.tracing ? await loadTracing() : undefined;
 */
export async function loadTracing(load: () => Promise<OtelEntry> = () => import('@jaxrs-node/pipeline/otel')): Promise<Tracing> {
  let otel: OtelEntry;
  try {
    otel = await load();
  } catch (e) {
    // The entry's own message names the package; anything else is not ours to reword.
    if (!String((e as Error)?.message).includes('@opentelemetry/api')) throw e;
    throw new ConfigError([
      {
        variable: 'TRACING',
        message:
          'true needs the package @opentelemetry/api, which is not installed: install it with an OpenTelemetry SDK ' +
          '(npm install @opentelemetry/api @opentelemetry/sdk-node, README "Traces"), or set TRACING=false',
      },
    ]);
  }
  return { feature: new otel.TracingFeature(), client: new otel.ClientTracing() };
}

/**
 * `@jaxrs-node/pipeline/otel`: traces through OpenTelemetry. `@opentelemetry/api` is an optional
 * peer dependency, needed only by applications that import this entry point; the spans go where
 * the application's OpenTelemetry SDK sends them (docs/tracing.md).
 * @example
 * import { ClientTracing, TracingFeature } from '@jaxrs-node/pipeline/otel';
 * const app = new Application({ resources: [Users], providers: [new TracingFeature()] });
 * const catalog = createClient(Catalog, { baseUrl, providers: [new ClientTracing()] });
 */
// First: without @opentelemetry/api this import fails with what to install.
import './api.js';

export { TracingFeature } from './tracing-feature.js';
export type { TracingOptions } from './tracing-feature.js';
export { ClientTracing } from './client-tracing.js';
export type { ClientTracingOptions } from './client-tracing.js';

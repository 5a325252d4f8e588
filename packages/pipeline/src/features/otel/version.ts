import { createRequire } from 'node:module';

/** The instrumentation scope the spans are recorded under (OpenTelemetry `InstrumentationScope`). */
export const INSTRUMENTATION_NAME = '@jaxrs-node/pipeline';

/** The pipeline's version, from its package.json (three folders up from src/features/otel and from dist/features/otel). */
export const INSTRUMENTATION_VERSION: string = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

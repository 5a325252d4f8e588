import { createRequire } from 'node:module';

/** The instrumentation scope the spans are recorded under (OpenTelemetry `InstrumentationScope`). */
export const INSTRUMENTATION_NAME = '@jaxrs-node/pipeline';

/** The pipeline's version, from its package.json (the package names itself: from its sources, its modules and its bundle alike). */
export const INSTRUMENTATION_VERSION: string = (createRequire(import.meta.url)('@jaxrs-node/pipeline/package.json') as { version: string })
  .version;

/**
 * busboy, loaded when the multipart entry point is imported: it is an optional peer dependency,
 * so an application that never imports `@jaxrs-node/pipeline/multipart` never needs it. Loaded
 * with `require` (busboy is CommonJS) so that a missing package gives a message that says what to
 * install instead of a bare `ERR_MODULE_NOT_FOUND`.
 */
import { createRequire } from 'node:module';
import type { Busboy, BusboyConfig } from 'busboy';

type BusboyFactory = (config: BusboyConfig) => Busboy;

function load(): BusboyFactory {
  const require = createRequire(import.meta.url);
  try {
    return require('busboy') as BusboyFactory;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(
      '@jaxrs-node/pipeline/multipart needs the package busboy (an optional peer dependency of @jaxrs-node/pipeline): ' +
        'install it next to the pipeline with `npm install busboy` (or `pnpm add busboy`)',
      { cause: e },
    );
  }
}

/** busboy's factory (`busboy(config)`). */
export const busboy: BusboyFactory = load();
export type { Busboy };

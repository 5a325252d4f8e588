/**
 * undici is an optional peer dependency: only this entry point needs it, so it is loaded here,
 * with `require` from this file's location (the package's own `node_modules`, or the
 * application's), and a missing or too old copy fails the import with the fix spelt out.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

/** The undici module, as `import * as undici from 'undici'` gives it. */
export type UndiciModule = typeof Undici;

/** The oldest undici major this client is written against (`Agent`, `MockAgent`, `request` as in undici 7). */
const MIN_MAJOR = 7;

/**
 * Loads undici as seen from `from` (a file URL or path); throws an Error explaining how to install
 * it when it cannot be found, or when its major version is below 7.
 * @internal
 * @example const undici = loadUndici(import.meta.url);
 */
export function loadUndici(from: string): UndiciModule {
  const require = createRequire(from);
  let module: UndiciModule;
  let version: string;
  try {
    module = require('undici') as UndiciModule;
    version = (require('undici/package.json') as { version: string }).version;
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code === 'MODULE_NOT_FOUND' && String(err.message).includes("'undici")) {
      throw new Error(
        `@jaxrs-node/pipeline/client needs the undici package (version ${MIN_MAJOR}), an optional peer dependency ` +
          `that is not installed: run \`npm install undici@${MIN_MAJOR}\` (or pnpm/yarn add). ` +
          `Only the client entry point needs it; '@jaxrs-node/pipeline' itself does not.`,
        { cause: e },
      );
    }
    throw e;
  }
  const major = Number(version.split('.')[0]);
  if (!(major >= MIN_MAJOR)) {
    throw new Error(
      `@jaxrs-node/pipeline/client needs undici ${MIN_MAJOR} or later, found ${version}: run \`npm install undici@${MIN_MAJOR}\``,
    );
  }
  return module;
}

/** undici, loaded once when the client entry point is imported. */
export const undici: UndiciModule = loadUndici(import.meta.url);

/**
 * Every path from the service's benchmarks into the user service, in one place: its package
 * directory, the program they start and the built modules they import. They run the service's
 * `dist/` (built by the bench scripts through `pnpm --filter "@jaxrs-node/bench..." run build`),
 * typed by its declaration files. When a module of the service moves, only this file changes.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The user service's package directory: its programs run with it as working directory. */
export const SERVICE_DIR = dirname(createRequire(import.meta.url).resolve('@jaxrs-node/user-service/package.json'));

/** The service's program (`node dist/main.js`), configured through its environment. */
export const SERVICE_MAIN = join(SERVICE_DIR, 'dist/main.js');

/** The service's built modules, loaded on demand so a runner loads only what it uses. */
export const serviceModules = {
  /** `createService` (the composed server) and its options. */
  server: () => import('@jaxrs-node/user-service/dist/server.js'),
  /** `loadConfig`: the configuration from an environment. */
  config: () => import('@jaxrs-node/user-service/dist/domain/config/app-config.js'),
  /** `TOKENS`: the dependency-injection tokens of the service's container. */
  diTokens: () => import('@jaxrs-node/user-service/dist/http/di-tokens.js'),
  /** `UserService`: the users' application service over a record store. */
  users: () => import('@jaxrs-node/user-service/dist/domain/users/service.js'),
  /** The storage port and adapters: `createRecordStore`, `MemoryRecordStore`. */
  storage: () => import('@jaxrs-node/user-service/dist/storage/index.js'),
};

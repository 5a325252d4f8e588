import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { defineProject } from 'vitest/config';

/** Whether an `etcd` binary is on PATH (as test/helpers/etcd.ts finds it). */
function hasEtcd(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, 'etcd'), constants.X_OK);
      return dir !== '';
    } catch {
      return false;
    }
  });
}

/**
 * The black-box suite again, each server being two instances that share a three-member etcd
 * cluster (STORAGE=etcd), requests alternating between them (test/helpers/server.ts). Suites about
 * the journal's own files (crash recovery, a full disk, a killed single process) stay in the
 * `user-service` project, and so does the docs page (Swagger UI in a browser: no storage in it). Without an etcd binary the project is skipped, except under CI, where
 * the global setup then fails.
 */
const skip = !hasEtcd() && !process.env.CI;

export default defineProject({
  test: {
    name: 'user-service-etcd',
    include: skip ? [] : ['test/blackbox/**/*.test.ts'],
    exclude: [
      'test/blackbox/crash.test.ts',
      'test/blackbox/disk-full.test.ts',
      'test/blackbox/async-crash.test.ts',
      'test/blackbox/docs-page.test.ts',
    ],
    passWithNoTests: true,
    env: { BLACKBOX_STORE: 'etcd' },
    globalSetup: skip ? [] : ['test/helpers/etcd-global-setup.ts'],
    testTimeout: 30_000,
  },
});

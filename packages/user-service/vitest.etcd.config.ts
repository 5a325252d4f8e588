import { defineProject } from 'vitest/config';

/**
 * The black-box suite again, each server being two instances that share a three-member etcd
 * cluster (STORAGE=etcd), requests alternating between them (test/helpers/server.ts). Suites about
 * the journal's own files (crash recovery, a full disk) stay in the `user-service` project.
 */
export default defineProject({
  test: {
    name: 'user-service-etcd',
    include: ['test/blackbox/**/*.test.ts'],
    exclude: ['test/blackbox/crash.test.ts', 'test/blackbox/disk-full.test.ts', 'test/blackbox/async-crash.test.ts'],
    env: { BLACKBOX_STORE: 'etcd' },
    globalSetup: ['test/helpers/etcd-global-setup.ts'],
    testTimeout: 30_000,
  },
});

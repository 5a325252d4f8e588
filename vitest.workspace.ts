import { defineConfig } from 'vitest/config';

// vitest 4 does not discover this file by itself: the root `test` script passes it with --config.
export default defineConfig({
  test: {
    projects: ['packages/pipeline', 'packages/user-service', 'packages/user-service/vitest.etcd.config.ts', 'packages/examples'],
  },
});

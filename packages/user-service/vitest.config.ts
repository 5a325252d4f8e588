import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'user-service',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});

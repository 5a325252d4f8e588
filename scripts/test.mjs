#!/usr/bin/env node
// The README's test command: build every package, type-check, lint and format-check everything, run every vitest project,
// then print the plain closing line `N passed, N failed` that CI reads.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  return r.status ?? 1;
};

for (const [cmd, args, what] of [
  ['pnpm', ['-r', 'run', 'build'], 'build'],
  ['pnpm', ['-r', 'run', 'typecheck'], 'type-check'],
  ['pnpm', ['run', 'lint'], 'lint'],
  ['pnpm', ['run', 'format:check'], 'format check'],
]) {
  if (run(cmd, args) !== 0) {
    console.error(`\n${what} failed`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const results = '.vitest-results.json';
rmSync(results, { force: true });
const extra = process.argv.slice(2);
const code = run('pnpm', [
  'exec',
  'vitest',
  'run',
  '--config',
  'vitest.workspace.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile=${results}`,
  ...extra,
]);
let passed = 0;
let failed = 0;
try {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
} catch {
  failed = Math.max(failed, 1);
}
if (code !== 0 && failed === 0) failed = 1;
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);

/**
 * Names of documents that only ever existed outside the repository, and absolute paths of one
 * machine: nothing the project ships or tracks may cite them (self-contained.test.ts and the
 * tarball check of consumer.test.ts). This file and those tests are the only ones that name them.
 */
export const FOREIGN_REFERENCE = new RegExp(
  [
    'PIPELINE-RULES',
    'HARDENING\\.md',
    'STYLE\\.md',
    'PERFORMANCE\\.md',
    'SPEC\\.md',
    'HELPERS\\.md',
    '/work/',
    '/home/',
    '/Users/',
    '/tmp/[a-z]',
  ].join('|'),
);

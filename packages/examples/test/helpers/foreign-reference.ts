/**
 * Names of documents that only ever existed outside the repository, and absolute paths of one
 * machine: nothing the project ships or tracks may cite them (self-contained.test.ts and the
 * tarball check of consumer.test.ts). Patterns are spelt so that this file does not match them itself.
 */
export const FOREIGN_REFERENCE = new RegExp(
  [
    'PIPELINE[-]RULES',
    'HARDENING\\.md',
    'STYLE\\.md',
    'PERFORMANCE\\.md',
    'SPEC\\.md',
    'HELPERS\\.md',
    '/wor[k]/',
    '/home/',
    '/Users/',
    '/tmp/[a-z]',
  ].join('|'),
);

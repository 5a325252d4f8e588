/**
 * Every stable error code the library sets is documented (Fastify's rule for `FST_ERR_*`): each
 * `'PIPE_*'`, `'OPENAPI_*'` and `'CLIENT_*'` string in `src/` is a row of a table in
 * docs/errors.md. (The start-up `PIPELINE_*` codes are checked by test/unit/model-validation.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The `.ts` files under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const codes = [
  ...new Set(
    sources(join(PKG, 'src')).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/'((?:PIPE|OPENAPI|CLIENT)_[A-Z0-9_]+)'/g)].map((m) => m[1]!),
    ),
  ),
].sort();
const page = readFileSync(join(PKG, 'docs', 'errors.md'), 'utf8');

describe('docs/errors.md lists every error code the library sets', () => {
  it('finds the codes', () => {
    expect(codes).toContain('PIPE_NO_MATCH');
    expect(codes).toContain('CLIENT_DEADLINE');
  });

  it.each(codes)('%s has a row', (code) => {
    expect(page, `add a row for ${code} to a table of docs/errors.md`).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
  });
});

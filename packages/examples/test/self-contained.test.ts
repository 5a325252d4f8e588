/**
 * The docs stand on their own: no tracked file of the repository (sources, tests, READMEs,
 * scripts) cites a document that is not in the repository or a path of one machine, so a user can
 * follow every reference. (The packed tarball is checked by consumer.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FOREIGN_REFERENCE } from './helpers/foreign-reference.js';

describe('the repository is self-contained', () => {
  it('no tracked text file refers to a file outside the repository or to a machine path', () => {
    const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(
        (f) =>
          f !== '' &&
          f !== 'pnpm-lock.yaml' &&
          !f.endsWith('self-contained.test.ts') &&
          !f.endsWith('helpers/foreign-reference.ts') &&
          !/\.(png|gz|tgz|ico)$/.test(f),
      );
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(root, f), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (FOREIGN_REFERENCE.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});

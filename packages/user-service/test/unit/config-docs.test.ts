/**
 * The README's configuration table says what CONFIG_DOCS says: the same variables, in the same
 * order, with the same defaults. CONFIG_DOCS is the source (loadConfig takes its defaults from the
 * same DEFAULTS); when this fails, change the README row the message names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS } from '../../src/domain/config/docs.js';

interface Row {
  readonly name: string;
  readonly default: string;
}

/** The rows of the first table under `## Configuration` in the service README. */
function readmeRows(): Row[] {
  const text = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = text.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('the README has no "## Configuration" section');
  const section = text.slice(start + 1);
  const end = section.indexOf('\n## ', 1);
  const rows: Row[] = [];
  for (const line of (end < 0 ? section : section.slice(0, end)).split('\n')) {
    const cells = /^\|(.*)\|\s*$/.exec(line)?.[1]?.split('|');
    if (cells === undefined || cells.length < 3) continue;
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0]!.trim())?.[1];
    if (name === undefined) continue; // the header and the separator
    rows.push({ name, default: cells[1]!.trim() });
  }
  return rows;
}

describe('the README configuration table matches CONFIG_DOCS', () => {
  const rows = readmeRows();

  it('finds the table', () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it('lists the same variables in the same order', () => {
    const documented = CONFIG_DOCS.map((d) => d.name);
    const inReadme = rows.map((r) => r.name);
    const missing = documented.filter((n) => !inReadme.includes(n));
    const extra = inReadme.filter((n) => !documented.includes(n));
    expect(missing, `in CONFIG_DOCS but not in the README table: ${missing.join(', ')}`).toEqual([]);
    expect(extra, `in the README table but not in CONFIG_DOCS: ${extra.join(', ')}`).toEqual([]);
    expect(inReadme, 'the README table lists the variables in another order than CONFIG_DOCS').toEqual(documented);
  });

  it.each(CONFIG_DOCS.map((d) => [d.name, d.default] as const))('%s: the README shows the default %j', (name, value) => {
    const row = rows.find((r) => r.name === name);
    expect(row?.default, `README row of ${name}: default "${row?.default}", CONFIG_DOCS says "${value}"`).toBe(value);
  });
});

/**
 * undici is an optional peer dependency needed only by `@jaxrs-node/pipeline/client`: the BUILT
 * main entry's import graph never reaches it, and importing the client entry where undici is not
 * installed fails at once with how to install it (while the main entry still loads).
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, DIST, ensureBuilt, importGraph, nodeIn, projectWithoutPeers } from '../helpers/entry-graph.js';

describe('undici stays behind the client entry point', () => {
  beforeAll(() => ensureBuilt(join(DIST, 'client', 'index.js')));

  it("the built main entry's import graph never reaches undici or the client folder", () => {
    const { files, packages } = importGraph(join(DIST, 'index.js'));
    expect(files.size).toBeGreaterThan(50);
    expect([...packages].filter((p) => p === 'undici' || p.startsWith('undici/'))).toEqual([]);
    expect([...files].filter((f) => f.startsWith(join(DIST, 'client')))).toEqual([]);
    // The bundle the package's exports name: the same split (the client's modules sit in its own files).
    const bundled = importGraph(join(BUNDLE, 'index.js'));
    expect([...bundled.packages].filter((p) => p === 'undici' || p.startsWith('undici/'))).toEqual([]);
    expect([...bundled.files].filter((f) => readFileSync(f, 'utf8').match(/require\(\s*['"]undici['"]\s*\)/) !== null)).toEqual([]);
    expect(
      [...importGraph(join(BUNDLE, 'client', 'index.js')).files].some(
        (f) => readFileSync(f, 'utf8').match(/require\(\s*['"]undici['"]\s*\)/) !== null,
      ),
    ).toBe(true);
  });

  it('the checker sees undici from the client entry (it would notice a leak)', () => {
    const { files } = importGraph(join(DIST, 'client', 'index.js'));
    expect(files.has(join(DIST, 'client', 'undici.js'))).toBe(true);
    expect(readFileSync(join(DIST, 'client', 'undici.js'), 'utf8')).toContain("require('undici')");
  });

  describe('in a project without undici', () => {
    let project: string;
    beforeAll(() => {
      const made = projectWithoutPeers('pipeline-no-undici-');
      project = made.project;
      cpSync(DIST, join(made.pkgDir, 'dist'), { recursive: true });
    });
    afterAll(() => rmSync(project, { recursive: true, force: true }));

    const load = (specifier: string) => nodeIn(project, `await import(${JSON.stringify(specifier)}); console.log('loaded');`);

    it('the main entry loads', () => {
      const r = load('@jaxrs-node/pipeline');
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('loaded');
    });

    it('the client entry fails at import, saying to install undici 7', () => {
      const r = load('@jaxrs-node/pipeline/client');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('@jaxrs-node/pipeline/client needs the undici package (version 7)');
      expect(r.stderr).toContain('npm install undici@7');
    });
  });
});

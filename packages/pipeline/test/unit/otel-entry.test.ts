/**
 * `@opentelemetry/api` is an optional peer dependency needed only by `@jaxrs-node/pipeline/otel`:
 * the BUILT main entry's (and the client entry's) import graph never reaches it or the otel
 * folder, and importing the otel entry where the API is not installed fails at once with what to
 * install (while the main entry still loads).
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, DIST, ensureBuilt, importGraph, nodeIn, projectWithoutPeers } from '../helpers/entry-graph.js';

const otelFiles = (files: Set<string>): string[] => [...files].filter((f) => f.startsWith(join(DIST, 'features', 'otel')));

describe('@opentelemetry/api stays behind the otel entry point', () => {
  beforeAll(() => ensureBuilt(join(DIST, 'features', 'otel', 'index.js')));

  it("the built main and client entries' import graphs never reach @opentelemetry/api or the otel folder", () => {
    for (const entry of [join(DIST, 'index.js'), join(DIST, 'client', 'index.js')]) {
      const { files, packages } = importGraph(entry);
      expect(files.size).toBeGreaterThan(20);
      expect([...packages].filter((p) => p.startsWith('@opentelemetry/'))).toEqual([]);
      expect(otelFiles(files)).toEqual([]);
    }
    // The bundles the package's exports name: the same split.
    for (const entry of [join(BUNDLE, 'index.js'), join(BUNDLE, 'client', 'index.js')]) {
      const { files, packages } = importGraph(entry);
      expect([...packages].filter((p) => p.startsWith('@opentelemetry/'))).toEqual([]);
      expect([...files].filter((f) => readFileSync(f, 'utf8').match(/require\(\s*['"]@opentelemetry\/api['"]\s*\)/) !== null)).toEqual([]);
    }
    const otel = importGraph(join(BUNDLE, 'features', 'otel', 'index.js'));
    expect([...otel.files].some((f) => readFileSync(f, 'utf8').match(/require\(\s*['"]@opentelemetry\/api['"]\s*\)/) !== null)).toBe(true);
  });

  it('the checker sees the API from the otel entry (it would notice a leak), and the otel entry does not load undici', () => {
    const { files, packages } = importGraph(join(DIST, 'features', 'otel', 'index.js'));
    expect(files.has(join(DIST, 'features', 'otel', 'api.js'))).toBe(true);
    expect(readFileSync(join(DIST, 'features', 'otel', 'api.js'), 'utf8')).toContain("require('@opentelemetry/api')");
    expect([...packages].filter((p) => p === 'undici' || p === 'busboy')).toEqual([]);
  });

  describe('in a project without @opentelemetry/api', () => {
    let project: string;
    beforeAll(() => {
      const made = projectWithoutPeers('pipeline-no-otel-');
      project = made.project;
      cpSync(DIST, join(made.pkgDir, 'dist'), { recursive: true });
    });
    afterAll(() => rmSync(project, { recursive: true, force: true }));

    const load = (specifier: string) => nodeIn(project, `await import(${JSON.stringify(specifier)}); console.log('loaded');`);

    it('the project really has no @opentelemetry/api', () => {
      const r = load('@opentelemetry/api');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('ERR_MODULE_NOT_FOUND');
    });

    it('the main entry loads', () => {
      const r = load('@jaxrs-node/pipeline');
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('loaded');
    });

    it('the otel entry fails at import, naming the package to install', () => {
      const r = load('@jaxrs-node/pipeline/otel');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('@jaxrs-node/pipeline/otel needs the package @opentelemetry/api');
      expect(r.stderr).toContain('npm install @opentelemetry/api');
    });
  });
});

// The public surface of every package entry, pinned: the runtime names each built entry exports
// (imported from dist, as a user's code loads it) and the names its declaration file declares
// (types included). A name added, removed or renamed fails this test until api-surface.json is
// updated in the same change, so the reviewer sees the decision in the diff.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const PKG = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'api-surface.json');
const UPDATE = process.env.UPDATE_API_SURFACE === '1';
const HOW_TO_UPDATE =
  'the public surface changed: if that is intended, rebuild the pipeline and run ' +
  '`UPDATE_API_SURFACE=1 npx -y pnpm@10.34.8 exec vitest run --config vitest.workspace.ts --project pipeline ' +
  'packages/pipeline/test/unit/api-surface.test.ts`, then commit packages/pipeline/test/unit/api-surface.json with the change';

/** Code-unit order: stable across machines and locales. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Surface {
  /** What `import * as m from entry` holds at run time. */
  readonly runtime: string[];
  /** Every name the entry's `.d.ts` exports (values and types). */
  readonly declared: string[];
}

interface ExportTarget {
  readonly types: string;
  readonly import: string;
}

/** The package's entry points, from package.json `exports` (`.`, `./testing`, ...), so a new entry is covered. */
function entries(): Array<[string, ExportTarget]> {
  const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')) as { exports: Record<string, ExportTarget | string> };
  return Object.entries(pkg.exports).flatMap(([name, target]) =>
    typeof target === 'string' ? [] : [[name, target] as [string, ExportTarget]],
  );
}

/**
 * The export names of an entry's declaration file. The entries list their names (`export { A, type B } from`,
 * `export type { C } from`, local declarations); an `export *` would hide them, so it is refused.
 */
function declaredNames(dts: string): string[] {
  const text = dts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  if (/export\s*\*/.test(text)) throw new Error('an entry uses `export *`: list its names (export { A, B } / export type { C })');
  const names = new Set<string>();
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of m[1]!.split(',')) {
      const spec = item.trim().replace(/^type\s+/, '');
      if (spec === '') continue;
      const alias = / as\s+(\S+)$/.exec(spec);
      names.add(alias === null ? spec : alias[1]!);
    }
  }
  for (const m of text.matchAll(
    /export\s+(?:declare\s+)?(?:abstract\s+)?(?:function|class|const|let|var|enum|interface|type|namespace)\s+([A-Za-z_$][\w$]*)/g,
  )) {
    names.add(m[1]!);
  }
  return [...names].sort(byCodeUnit);
}

async function surfaceOf(target: ExportTarget): Promise<Surface> {
  const js = join(PKG, target.import);
  const dts = join(PKG, target.types);
  if (!existsSync(js) || !existsSync(dts))
    throw new Error(`${target.import} is missing: build the pipeline first (npx tsc -p tsconfig.build.json)`);
  const mod = (await import(pathToFileURL(js).href)) as Record<string, unknown>;
  return { runtime: Object.keys(mod).sort(byCodeUnit), declared: declaredNames(readFileSync(dts, 'utf8')) };
}

describe('public API surface', () => {
  it('every entry exports exactly the names recorded in api-surface.json', async () => {
    const actual: Record<string, Surface> = {};
    for (const [name, target] of entries()) actual[name] = await surfaceOf(target);
    if (UPDATE) writeFileSync(SNAPSHOT, `${JSON.stringify(actual, null, 2)}\n`);
    const recorded = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Surface>;
    expect(actual, HOW_TO_UPDATE).toEqual(recorded);
  });

  it('every runtime export is also declared (the .d.ts and the JavaScript agree)', async () => {
    for (const [, target] of entries()) {
      const { runtime, declared } = await surfaceOf(target);
      expect(runtime.filter((n) => !declared.includes(n))).toEqual([]);
    }
  });

  it('the declaration reader sees named, aliased, type-only and local exports, and refuses export *', () => {
    const dts = [
      "export { A, type B, C as D } from './a.js';",
      "export type { E } from './e.js';",
      'export declare function f(): void;',
      'export interface G {}',
      'export declare const H: number;',
    ].join('\n');
    expect(declaredNames(dts)).toEqual(['A', 'B', 'D', 'E', 'G', 'H', 'f']);
    expect(() => declaredNames("export * from './x.js';")).toThrow(/export \*/);
  });
});

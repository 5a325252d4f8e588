import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The source is grouped into folders by concept, and the folders form layers: no folder imports
 * from a folder that imports it back, directly or around a circle (type-only imports count too).
 * The core's request-time steps (`core/stages`) and start-up (`core/build`) are reached only
 * through the named internal layer (`core/internal`): features, the client and the testing entry
 * import that layer, never a step, so a change to a step cannot break them.
 */
const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of every source file, as paths relative to src (`core/stages/respond.ts`). */
function importEdges(): Array<{ from: string; to: string }> {
  return filesUnder(src).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => ({
      from: relative(src, file),
      to: relative(src, resolve(dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
    })),
  );
}

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of importEdges()) {
    const a = dirname(from);
    const b = dirname(to);
    const edges = graph.get(a) ?? new Set<string>();
    graph.set(a, edges);
    if (b !== a) edges.add(b);
  }
  return graph;
}

/** A layering rule: files under any of `from` never import files under any of `never`. */
interface Rule {
  readonly from: readonly string[];
  readonly never: readonly string[];
}

const under = (path: string, folders: readonly string[]): boolean => folders.some((f) => path.startsWith(`${f}/`));

/** The imports that break `rule`, as `from -> to`. */
function violations(edges: ReadonlyArray<{ from: string; to: string }>, rule: Rule): string[] {
  return edges.filter((e) => under(e.from, rule.from) && under(e.to, rule.never)).map((e) => `${e.from} -> ${e.to}`);
}

const RULES: ReadonlyArray<Rule & { readonly why: string }> = [
  {
    why: 'features, the client and the testing entry reach the core through core/internal, never a request-time step or start-up',
    from: ['features', 'client', 'testing'],
    never: ['core/stages', 'core/build'],
  },
  {
    why: 'the internal layer sits below the steps and the optional parts that use it',
    from: ['core/internal'],
    never: ['core/stages', 'features', 'client'],
  },
];

function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('source layout', () => {
  it('no folder of src imports in a circle', () => {
    expect(findCycle(folderGraph())).toBeUndefined();
  });

  it('the checker finds a circle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
  });

  for (const rule of RULES) {
    it(`${rule.from.join(', ')} never import ${rule.never.join(', ')}: ${rule.why}`, () => {
      expect(violations(importEdges(), rule)).toEqual([]);
    });
  }

  it('the rule checker finds an import that breaks a rule, and only that one', () => {
    const edges = [
      { from: 'features/sse/sink.ts', to: 'core/stages/respond.ts' },
      { from: 'features/sse/sink.ts', to: 'core/internal/extensions.ts' },
      { from: 'core/stages/respond.ts', to: 'core/internal/extensions.ts' },
    ];
    expect(violations(edges, RULES[0]!)).toEqual(['features/sse/sink.ts -> core/stages/respond.ts']);
  });

  it('core/internal exists and is imported by features, the client and the testing entry', () => {
    const users = new Set(
      importEdges()
        .filter((e) => under(e.to, ['core/internal']) && !under(e.from, ['core']))
        .map((e) => e.from.split('/')[0]),
    );
    expect([...users]).toEqual(expect.arrayContaining(['client', 'features', 'testing']));
  });

  it('src/core keeps no source file at its top level: each belongs to a concept folder', () => {
    expect(readdirSync(join(src, 'core')).filter((n) => n.endsWith('.ts'))).toEqual([]);
  });
});

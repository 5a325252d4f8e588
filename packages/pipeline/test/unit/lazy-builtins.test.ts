// The transports and workers load their Node built-ins when first used (core/util/builtin.ts):
// the package's modules import none of node:cluster, node:http2, node:https or node:tls, and an
// application that serves plain HTTP/1.1 loads no more of the last three than a hand-written
// node:http server does (none on Node 20 and 22; Node 24's node:http loads node:tls and
// node:http2 itself). node:cluster is Node's own business once a server listens (net's listen()
// loads it).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE, DIST, ensureBuilt, importGraph, PIPELINE_DIR } from '../helpers/entry-graph.js';
import { TEST_TLS } from '../helpers/h2.js';

const KEY_FILE = join(dirname(TEST_TLS.certFile), 'key.pem');

const LAZY = ['node:cluster', 'node:http2', 'node:https', 'node:tls'];

/** The built-ins a fresh Node process has loaded after running `code` (Node's own `process.moduleLoadList`). */
function builtinsAfter(code: string): string[] {
  const program = `${code}\nconsole.log(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'node:' + m.slice(13))));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: PIPELINE_DIR, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`node exited with ${r.status ?? r.signal}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[];
}

describe('built-ins loaded on first use', { timeout: 60_000 }, () => {
  // The bundle, as an application loads it through the package's exports.
  const entry = pathToFileURL(join(BUNDLE, 'index.js')).href;
  beforeAll(() => ensureBuilt(join(DIST, 'index.js')));

  it("no module of the main entry's graph imports them statically, nor its bundle", () => {
    const found: string[] = [];
    for (const entry of [join(DIST, 'index.js'), join(BUNDLE, 'index.js')]) {
      for (const file of importGraph(entry).files) {
        for (const m of readFileSync(file, 'utf8').matchAll(/^\s*import\s[^;]*?from\s*['"](node:[a-z0-9_/]+)['"]/gm)) {
          if (LAZY.includes(m[1]!)) found.push(`${relative(DIST, file)}: ${m[1]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  /** A program that builds `app`, an application answering `GET /` with `hi`. */
  const withApp = (rest: string): string => `
    import 'reflect-metadata';
    const { Application, GET, Path } = await import(${JSON.stringify(entry)});
    class R { hi() { return 'hi'; } }
    GET()(R.prototype, 'hi', Object.getOwnPropertyDescriptor(R.prototype, 'hi'));
    Path('/')(R);
    const app = new Application({ resources: [R] });
    ${rest}`;

  /** Fetches `/` from `port` with node:http and checks the body (global fetch would load node:tls and node:http2 itself). */
  const getHi = `
    const { get } = await import('node:http');
    const text = await new Promise((resolve, reject) => get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject));
    if (text !== 'hi') throw new Error('not served: ' + text);`;

  /**
   * What a hand-written node:http server that answers one request loads: Node's own share. Node 24
   * and later load node:tls and node:http2 with node:http itself; Node 20 and 22 do not.
   */
  const plain = (): string[] =>
    builtinsAfter(`
      const { createServer } = await import('node:http');
      const server = createServer((req, res) => res.end('hi'));
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address();
      ${getHi}
      await new Promise((r) => server.close(r));`);

  it('importing the package and serving HTTP/1.1 loads none of them beyond what node:http loads', () => {
    const node = plain();
    const loaded = builtinsAfter(
      withApp(`
        const { port } = await app.listen(0);
        ${getHi}
        await app.close();`),
    );
    expect(loaded).toContain('node:http');
    const lazy = ['node:http2', 'node:https', 'node:tls'];
    expect(loaded.filter((m) => lazy.includes(m) && !node.includes(m))).toEqual([]);
  });

  it('listen() with tls loads node:https and node:tls then (and node:http2 only where node:http does)', () => {
    const node = plain();
    const loaded = builtinsAfter(
      withApp(`
        const { readFileSync } = await import('node:fs');
        const tls = { key: readFileSync(${JSON.stringify(KEY_FILE)}), cert: readFileSync(${JSON.stringify(TEST_TLS.certFile)}) };
        const { port } = await app.listen(0, '127.0.0.1', { tls });
        if (!(port > 0)) throw new Error('not listening');
        await app.close();`),
    );
    expect(loaded).toEqual(expect.arrayContaining(['node:https', 'node:tls']));
    expect(loaded.includes('node:http2')).toBe(node.includes('node:http2'));
  });
});

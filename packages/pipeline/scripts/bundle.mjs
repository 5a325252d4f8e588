// The package's entries as bundles (`pnpm run build`, after tsc): one file per entry in
// dist/bundle, the modules they share in chunks of their own, so a class is defined once whichever
// entries an application imports (an `instanceof` across `@jaxrs-node/pipeline` and its
// `/testing`, `/client`, `/multipart` and `/otel` entries holds). tsc's per-module output stays in
// dist next to its declarations, which the `types` conditions name.
//
// Why: Node's ESM loader reads every module file through a `FileHandle`, an EventEmitter. The 180
// module files of the package made `EventEmitter.init` megamorphic before the server started, and
// the stream, request and response constructors that inline it paid for that on every request
// (docs/benchmarks.md). Bundled, the import opens a handful of files and takes a third of the time.
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

// `node scripts/bundle.mjs [dist]`: tsc's output folder, the package's dist by default (tests bundle a copy elsewhere).
const dist = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'));
const out = join(dist, 'bundle');

/** Entry name (its path under dist/bundle, without `.js`) -> tsc's output for it. */
const entries = {
  index: 'index.js',
  'testing/index': 'testing/index.js',
  'client/index': 'client/index.js',
  'features/multipart/index': 'features/multipart/index.js',
  'features/otel/index': 'features/otel/index.js',
};

rmSync(out, { recursive: true, force: true });
await build({
  input: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, join(dist, file)])),
  platform: 'node',
  // Dependencies, optional peers and Node's built-ins stay imports: only the package's own modules are bundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  treeshake: true,
  logLevel: 'warn',
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    // Functions and classes keep their `name` (error messages and traces name them).
    keepNames: true,
    sourcemap: false,
  },
});

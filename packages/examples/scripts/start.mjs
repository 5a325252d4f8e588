#!/usr/bin/env node
// Runs one example by name:  pnpm --filter @jaxrs-node/examples start hello
// Names are the folder names under src/ without their number: 01-hello → hello (01 or 1 work too).
// With no name, or an unknown one, it lists the examples. Examples run from dist/: build first
// with `pnpm --filter @jaxrs-node/examples build` (the pipeline package must be built too).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examples = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && /^\d{2}-[a-z0-9-]+$/.test(d.name))
  .map((d) => ({ dir: d.name, number: d.name.slice(0, 2), name: d.name.slice(3) }))
  .sort((a, b) => a.dir.localeCompare(b.dir));

function list(stream) {
  stream.write('Examples (pnpm --filter @jaxrs-node/examples start <name>):\n');
  for (const e of examples) stream.write(`  ${e.number}  ${e.name}\n`);
}

const wanted = process.argv[2];
if (wanted === undefined || wanted === '' || wanted === '--help' || wanted === '-h') {
  list(process.stdout);
  process.exit(0);
}

const key = wanted.toLowerCase();
const example = examples.find((e) => e.name === key || e.dir === key || e.number === key.padStart(2, '0'));
if (example === undefined) {
  process.stderr.write(`Unknown example "${wanted}".\n`);
  list(process.stderr);
  process.exit(1);
}

const main = join(root, 'dist', example.dir, 'main.js');
if (!existsSync(main)) {
  process.stderr.write(
    `${main} does not exist: build first with\n  pnpm --filter @jaxrs-node/pipeline build && pnpm --filter @jaxrs-node/examples build\n`,
  );
  process.exit(1);
}
// Same process: the example's own SIGINT/SIGTERM handlers close it gracefully.
await import(pathToFileURL(main).href);

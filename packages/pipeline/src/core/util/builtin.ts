import type { Cluster } from 'node:cluster';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** The built-ins {@link builtin} loads, by name, with what `require` answers for each. */
interface Builtins {
  'node:cluster': Cluster;
  'node:http2': typeof import('node:http2');
  'node:https': typeof import('node:https');
  'node:tls': typeof import('node:tls');
}

/**
 * A Node built-in loaded when a capability first needs it, not when the package is imported:
 * `node:cluster` (workers), `node:https`, `node:http2` and `node:tls` (`listen()` with `tls` or
 * `http2`). Loading them creates objects an application that never uses them would carry (the
 * cluster's emitters, the HTTPS agent, a `process.stderr` stream that `node:http2` opens for its
 * colours) and takes about 8 ms of the import; `require` caches them, so later calls cost a lookup.
 */
export function builtin<N extends keyof Builtins>(name: N): Builtins[N] {
  return load(name) as Builtins[N];
}

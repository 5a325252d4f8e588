// The process million.ts measures: the service's own program (`dist/main.js`, configured by its
// environment, unchanged) with one addition, an IPC answer to `memory`: a full GC when the process
// runs with --expose-gc, then `process.memoryUsage()`. That is how the runner reads the heap of a
// server it only talks to over HTTP; it asks only after the timings, so the GC it forces never
// falls inside a measurement.
// Usage (by million.ts): fork(dist/service/million-server.js, { execArgv: ['--expose-gc'] }).
import { pathToFileURL } from 'node:url';
import { SERVICE_MAIN } from './service-paths.js';

/** The answer to a `memory` message. */
export interface MemoryAnswer {
  readonly type: 'memory';
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

process.on('message', (message: unknown) => {
  if (message !== 'memory' || process.send === undefined) return;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const answer: MemoryAnswer = { type: 'memory', rss, heapUsed, heapTotal, external, arrayBuffers };
  process.send(answer);
});
// The IPC channel must not keep the server alive after its own shutdown path is done.
process.channel?.unref();

// BENCH_SERVICE_MAIN: another build of the service, for a long run that must not see a rebuild
// half-way: a copy of its dist/ kept under the service's dist/ (so its imports resolve, and git,
// lint and prettier ignore it): copy the service's dist/ to a temporary folder, then move that to dist/.run.
await import(pathToFileURL(process.env.BENCH_SERVICE_MAIN ?? SERVICE_MAIN).href);

/**
 * Starting the measured servers: each is started once for the whole benchmark, pinned to the
 * server core, waited for (bounded), checked with one request (and, for filter variants, one
 * refused request) and warmed up. The warm-up passes `check` (runner-util.ts), as every measured run must.
 */
import { join } from 'node:path';
import { config } from './config.js';
import { FILTER_HEADER, REJECT_HEADER, REJECT_QUERY, sendsFilterHeader } from './common.js';
import type { LoadGenerator } from './load.js';
import { stop } from './proc.js';
import { check, PKG_DIR, spawnServer, type ServerProcess } from './runner-util.js';
import { oneBody, requestOf, type ServerSpec } from './servers.js';

/** A server started for the whole benchmark: started, checked and warmed once, then measured many times. */
export interface Running extends ServerProcess {
  spec: ServerSpec;
}

/** Starts `spec` behind `serverPin`, waits until it is ready, checks it and warms it up; stops it again on failure. */
export async function launch(spec: ServerSpec, serverPin: string[], load: LoadGenerator): Promise<Running> {
  const profiling =
    config.profile && spec.cmd === 'node'
      ? ['--cpu-prof', `--cpu-prof-dir=${join(PKG_DIR, 'results', 'profiles')}`, `--cpu-prof-name=${spec.name}.cpuprofile`]
      : [];
  const { url, child, io, ready } = await spawnServer(spec, { prefix: serverPin, runtimeArgs: profiling, readyMs: 15000 });
  const running: Running = { spec, url, child, io };
  try {
    await ready();
    await sanity(spec, url);
    check(url, await load.run(url, requestOf(spec), config.warmup));
    return running;
  } catch (e) {
    await stop(child);
    throw failure(running, e);
  }
}

/** `e` with the server's name and the tail of its stderr. */
export function failure(r: Running, e: unknown): Error {
  const err = r.io.stderr().slice(-2000);
  return new Error(`${r.spec.name}: ${(e as Error).message}${err === '' ? '' : `\n--- server stderr ---\n${err}`}`);
}

/** Throws (with its stderr) when the server has exited: a measured run needs it alive. */
export function assertAlive(r: Running): void {
  if (r.child.exitCode !== null || r.child.signalCode !== null) throw failure(r, new Error('server exited during the benchmark'));
}

/** One request before the load: a 2xx (or the workload's status) carrying the expected headers (the filters really ran). */
async function sanity(spec: ServerSpec, url: string): Promise<void> {
  const res = await fetch(url, { method: spec.method, body: oneBody(spec), headers: spec.headers, signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (spec.status === undefined ? !res.ok : res.status !== spec.status)
    throw new Error(`sanity request answered ${res.status}: ${body.slice(0, 200)}`);
  for (const h of [...(spec.expectHeaders ?? []), ...(spec.filters === true && sendsFilterHeader(res.status) ? [FILTER_HEADER] : [])]) {
    if (!res.headers.has(h)) throw new Error(`sanity request: header ${h} missing`);
  }
  if (spec.filters === true) {
    // Proof that both filters run: the request filter refuses, the response filter still adds its header.
    const probe = new URL(url);
    probe.searchParams.set(REJECT_QUERY, '1');
    const refusedRes = await fetch(probe, { headers: { ...spec.headers, [REJECT_HEADER]: '1' }, signal: AbortSignal.timeout(5000) });
    await refusedRes.arrayBuffer();
    if (refusedRes.status !== 403 || !refusedRes.headers.has(FILTER_HEADER)) {
      throw new Error(
        `refusal probe answered ${refusedRes.status} (${FILTER_HEADER}: ${refusedRes.headers.get(FILTER_HEADER)}); expected 403 with the filter header`,
      );
    }
  }
}

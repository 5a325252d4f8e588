/**
 * Example 28, every core: one application served by a worker process per core with
 * `serveOnCores`. The same `main.ts` runs as the supervisor (it forks the workers, restarts one
 * that dies, forwards SIGTERM/SIGINT and exits once they drained) and as each worker (it builds
 * the application with `createApp` and listens). Each answer names the process that served it.
 *
 *   GET /whoami              → {"pid":1234}
 *   GET /primes?below=50000  → {"pid":1234,"below":50000,"count":5133}   (CPU-bound: where more cores help)
 */
import { Application, BadRequestError, DefaultValue, GET, Path, QueryParam } from '@jaxrs-node/pipeline';

/** The largest `below` accepted: keeps one request's CPU time bounded. */
export const MAX_BELOW = 1_000_000;

@Path('/')
export class CoreResource {
  /** Which worker process answered. */
  @GET('whoami')
  whoami(): { pid: number } {
    return { pid: process.pid };
  }

  /** Counts the primes below `below` (a sieve): work that keeps one core busy for a while. */
  @GET('primes')
  primes(@QueryParam('below') @DefaultValue('50000') below: number): { pid: number; below: number; count: number } {
    if (!Number.isInteger(below) || below < 2 || below > MAX_BELOW) {
      throw new BadRequestError(`below must be an integer from 2 to ${MAX_BELOW}`);
    }
    return { pid: process.pid, below, count: countPrimes(below) };
  }
}

/** The number of primes below `n` (sieve of Eratosthenes). */
export function countPrimes(n: number): number {
  const composite = new Uint8Array(n);
  let count = 0;
  for (let i = 2; i < n; i++) {
    if (composite[i] === 1) continue;
    count++;
    for (let j = i * i; j < n; j += i) composite[j] = 1;
  }
  return count;
}

/** Called once in every worker process (never in the supervisor). */
export function createApp(): Application {
  return new Application({ resources: [CoreResource] });
}

/** `WORKERS` as a worker count: `auto` (default: one per core) or a positive integer; a typo fails loudly. */
export function workersFromEnv(env: NodeJS.ProcessEnv = process.env): number | 'auto' {
  const raw = env.WORKERS;
  if (raw === undefined || raw === '' || raw === 'auto') return 'auto';
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 1)
    throw new RangeError(`WORKERS must be 'auto' or a positive integer, got ${JSON.stringify(raw)}`);
  return workers;
}

/**
 * What every benchmark server shares: the answer, the port, the filter work and the `ready` line.
 * Each server does the same work so the table compares frameworks, not payloads.
 */

/** The user every server answers with (about 70 bytes of JSON). */
export interface User {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
}

/** Builds the answer per request, as a resource method would: a fresh object, then JSON. */
export function userOf(id: number): User {
  return { id, firstName: 'John', lastName: 'Doe', email: 'test@example.com' };
}

const PREFIX = '/api/users/';

/** The id in `/api/users/<id>[?query]` parsed by hand, or undefined for any other path. */
export function parseId(url: string | undefined): number | undefined {
  if (url === undefined || !url.startsWith(PREFIX)) return undefined;
  const q = url.indexOf('?', PREFIX.length);
  const raw = q < 0 ? url.slice(PREFIX.length) : url.slice(PREFIX.length, q);
  if (raw === '' || raw.includes('/')) return undefined;
  const id = Number(raw);
  return Number.isFinite(id) ? id : undefined;
}

/** The port to listen on: `PORT` from the environment, 0 (any free port) when unset. */
export function portFromEnv(): number {
  const raw = process.env.PORT ?? '0';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad PORT ${raw}`);
  return port;
}

/** Header the request filters check: a request carrying it is refused with 403. */
export const REJECT_HEADER = 'x-bench-reject';
/** Header the response filters add: how long the request took inside the server. */
export const TIME_HEADER = 'x-response-time';

/** The response filter's value: elapsed milliseconds since `start` (a `performance.now()`). */
export function elapsed(start: number): string {
  return `${(performance.now() - start).toFixed(3)}ms`;
}

/** Tells the runner the server is listening: one `ready <port>` line on stdout. */
export function announce(port: number): void {
  process.stdout.write(`ready ${port}\n`);
}

/** Exits cleanly on SIGTERM/SIGINT so `--cpu-prof` gets to write its profile. */
export function exitOnSignal(close: () => void): void {
  const stop = (): void => {
    close();
    // Bounded: a keep-alive socket must not keep the process alive after the run.
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

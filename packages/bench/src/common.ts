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

/** Header the request filters check: a request carrying it is refused with 403 (`header`, `timing`). */
export const REJECT_HEADER = 'x-bench-reject';
/** Query text the request filters check instead with `minimal`: a URL containing it is refused with 403. */
export const REJECT_QUERY = 'bench-reject';

/**
 * What the two filters do (`BENCH_FILTERS`), the same in every `-filters` / `-hooks` server:
 * - `header` (default): the request filter refuses a request carrying {@link REJECT_HEADER} and
 *   passes a value to the response filter, which sends it as the `x-bench-filter` header: an
 *   authentication-style check plus a header decorator.
 * - `timing`: the same, except that the value is `performance.now()` and the header
 *   `x-response-time: <elapsed>ms` (two clock reads and a `toFixed`).
 * - `minimal`: the cost of running two filters and little else. The request filter refuses a
 *   URL containing {@link REJECT_QUERY} (no request header is read, so Node never builds
 *   `req.headers`) and passes a value; the response filter reads it and sends the header only
 *   on a refused request. The runner's sanity check sends one refused request to every filter
 *   variant, so each workload proves both filters ran.
 */
type FilterWork = 'header' | 'timing' | 'minimal';

const FILTER_WORK: FilterWork = filterWork(process.env.BENCH_FILTERS);

function filterWork(raw: string | undefined): FilterWork {
  if (raw === undefined || raw === '' || raw === 'header') return 'header';
  if (raw === 'timing' || raw === 'minimal') return raw;
  throw new Error(`BENCH_FILTERS must be header, timing or minimal, got ${raw}`);
}

/** Does the request filter refuse this request? `url` is the request target (or its query), `header` reads a request header. */
export function refused(url: string, header: (name: string) => unknown): boolean {
  return FILTER_WORK === 'minimal' ? url.includes(REJECT_QUERY) : header(REJECT_HEADER) !== undefined;
}

/** Does the response filter send {@link FILTER_HEADER} on a response with this status? */
export function sendsFilterHeader(status: number): boolean {
  return FILTER_WORK !== 'minimal' || status === 403;
}

/** Header the response filters add (with `minimal`, only to refused requests). */
export const FILTER_HEADER = FILTER_WORK === 'timing' ? 'x-response-time' : 'x-bench-filter';

/** The request filter's value for the response filter. */
export function stamp(): number | string {
  return FILTER_WORK === 'timing' ? performance.now() : 'passed';
}

/** The response filter's header value from the request filter's {@link stamp}. */
export function filterHeaderValue(value: number | string): string {
  return typeof value === 'number' ? elapsed(value) : value;
}

/** Elapsed milliseconds since `start` (a `performance.now()`), as `1.234ms`. */
function elapsed(start: number): string {
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

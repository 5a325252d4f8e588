/**
 * Health checks and the reports they make, in the shape of MicroProfile Health 4.0 (the one
 * Quarkus, Helidon and Open Liberty serve and Kubernetes probes read by status code):
 * `{ "status": "UP" | "DOWN", "checks": [{ "name", "status", "data"? }] }`, UP only when every
 * check is UP (an empty list is UP).
 */

/** A check's or a report's status. */
export type HealthStatus = 'UP' | 'DOWN';

/**
 * Which probe a check belongs to (MicroProfile Health's `@Liveness`, `@Readiness`, `@Startup`):
 * `liveness` (restart the process when DOWN: only what a restart cures), `readiness` (send no
 * traffic while DOWN: dependencies, warm-up, draining), `startup` (not started yet: liveness and
 * readiness wait for it).
 */
export type HealthCheckKind = 'liveness' | 'readiness' | 'startup';

/**
 * Extra facts of a check (MicroProfile Health's `data`): flat, strings, numbers and booleans (a key
 * whose value is undefined is left out, as JSON does; allowed so that `cond ? { a: 1 } : { b: 'x' }` types).
 */
export type HealthData = Readonly<Record<string, string | number | boolean | undefined>>;

/** What a check may answer besides `true`/`false`/nothing: its status, with facts. */
export interface HealthCheckResult {
  readonly status: HealthStatus;
  readonly data?: HealthData;
}

/**
 * One check, registered by the application. `check` is called on every request of a probe that
 * includes it, concurrently with the others; it answers UP when it returns (or resolves to)
 * nothing or `true`, DOWN for `false`, or a {@link HealthCheckResult}. A check that throws or
 * rejects is DOWN with the error's message as `data.reason` (no stack); one that has not answered
 * within its timeout is DOWN with `data.reason` saying so, and `signal` is aborted then so that
 * the work it started can stop (pass it to `fetch`, a driver's query...).
 * @example
 * const db: HealthCheck = { name: 'database', kind: 'readiness', timeoutMs: 300, check: async (signal) => { await pool.query('SELECT 1', { signal }); } };
 */
export interface HealthCheck {
  /** Its name in the report; unique among the checks of a feature. */
  readonly name: string;
  /** The probe(s) it belongs to. */
  readonly kind: HealthCheckKind | readonly HealthCheckKind[];
  /** Milliseconds it may take; default the feature's `timeoutMs`. */
  readonly timeoutMs?: number;
  check(signal: AbortSignal): HealthCheckOutcome | Promise<HealthCheckOutcome>;
}

/** What {@link HealthCheck.check} may answer. */
export type HealthCheckOutcome = HealthCheckResult | boolean | undefined | void;

/** One check in a report. */
export interface HealthCheckReport {
  readonly name: string;
  readonly status: HealthStatus;
  readonly data?: HealthData;
}

/** A probe's answer: the body of its response (200 when `status` is UP, else 503). */
export interface HealthReport {
  readonly status: HealthStatus;
  readonly checks: readonly HealthCheckReport[];
}

/** Longest string kept in `data` (a thrown error's message included): a probe body stays small. */
const MAX_REASON = 500;

/** A DOWN report of `name` with `reason`. */
export function down(name: string, reason: string): HealthCheckReport {
  return { name, status: 'DOWN', data: { reason: truncate(reason) } };
}

/** What a check answered, as its report; anything unexpected is DOWN, saying what came. */
function toReport(name: string, outcome: unknown): HealthCheckReport {
  if (outcome === undefined || outcome === true) return { name, status: 'UP' };
  if (outcome === false) return { name, status: 'DOWN' };
  if (typeof outcome === 'object' && outcome !== null) {
    const { status, data } = outcome as { status?: unknown; data?: unknown };
    if (status === 'UP' || status === 'DOWN') {
      const clean = typeof data === 'object' && data !== null ? flat(data) : undefined;
      return clean === undefined ? { name, status } : { name, status, data: clean };
    }
  }
  return down(name, `the check answered ${describe(outcome)}; expected nothing, true, false or { status: 'UP' | 'DOWN', data? }`);
}

/**
 * `data` as the report can always serialise it: strings, booleans and finite numbers as they are,
 * undefined left out, anything else (a nested object, a bigint, NaN) as its `String()`, so that a
 * check's odd data never turns a probe into a 500. Undefined when nothing is left.
 */
function flat(data: object): HealthData | undefined {
  const out: Record<string, string | number | boolean> = {};
  let any = false;
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    any = true;
    if (typeof v === 'string') out[k] = truncate(v);
    else if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
    else out[k] = truncate(safeString(v));
  }
  return any ? out : undefined;
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

function truncate(s: string): string {
  return s.length > MAX_REASON ? `${s.slice(0, MAX_REASON)}…` : s;
}

function describe(v: unknown): string {
  if (typeof v === 'object' && v !== null) return `an object without a status of 'UP' or 'DOWN'`;
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message === '' ? e.name : e.message;
  return safeString(e);
}

/**
 * Runs one check against its timeout. Never rejects: a throw, a rejection, a wrong answer or a
 * timeout is a DOWN report. The timer is cleared as soon as the check answers.
 */
export async function runCheck(check: HealthCheck, timeoutMs: number): Promise<HealthCheckReport> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HealthCheckReport>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`health check ${check.name} timed out`, 'TimeoutError'));
      resolve(down(check.name, `no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const answered = (async () => toReport(check.name, await check.check(controller.signal)))().catch((e: unknown) =>
    down(check.name, messageOf(e)),
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The report of `checks` run concurrently, followed by `extra` (built-in checks), in order. */
export async function report(
  checks: readonly HealthCheck[],
  defaultTimeoutMs: number,
  extra: readonly HealthCheckReport[],
): Promise<HealthReport> {
  const ran = await Promise.all(checks.map((c) => runCheck(c, c.timeoutMs ?? defaultTimeoutMs)));
  const all = [...ran, ...extra];
  return { status: all.every((c) => c.status === 'UP') ? 'UP' : 'DOWN', checks: all };
}

/**
 * Bounded polling, the one way these tests wait for an effect that happens in the background (a
 * snapshot finishing, a part file appearing, a job reaching a state, a token expiring): they wait
 * for the effect itself instead of sleeping, and a missing effect fails, naming what was awaited,
 * instead of hanging the run.
 */

/**
 * Resolves once `done()` holds: checked at once, then every `intervalMs`. Rejects with
 * `timed out after <timeoutMs> ms waiting for <what>` once `timeoutMs` has passed, or with what
 * `done` throws, so an assertion inside `done` fails the test at once.
 */
export async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000, intervalMs = 5): Promise<void> {
  // performance.now() is monotonic: a wall-clock step (NTP) can neither stretch nor cut the wait.
  const deadline = performance.now() + timeoutMs;
  // Also bounded in count, as a backstop: it allows twice the checks the time does, so the deadline ends the wait first.
  const maxChecks = 2 * Math.ceil(timeoutMs / Math.max(1, intervalMs)) + 1;
  for (let checks = 1; !(await done()); checks++) {
    if (performance.now() > deadline || checks >= maxChecks) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

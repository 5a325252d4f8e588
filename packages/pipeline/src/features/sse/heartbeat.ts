/**
 * Heartbeats of many streams from one timer per interval: thousands of open streams cost one
 * timer, not one each. A clock runs only while it has streams, so nothing is left behind.
 */

/** What a clock ticks: a stream that sends a comment when it was quiet since the last tick. */
export interface Beating {
  beat(): void;
}

interface Clock {
  readonly timer: NodeJS.Timeout;
  readonly members: Set<Beating>;
}

const clocks = new Map<number, Clock>();

/**
 * Ticks `member.beat()` every `intervalMs` until the returned function is called; the first beat
 * comes within one interval. The timer is unref'd: heartbeats never keep a process alive.
 * @example const stop = joinHeartbeat(15_000, sink);
 */
export function joinHeartbeat(intervalMs: number, member: Beating): () => void {
  let clock = clocks.get(intervalMs);
  if (clock === undefined) {
    const members = new Set<Beating>();
    const timer = setInterval(() => {
      for (const m of members) m.beat();
    }, intervalMs);
    timer.unref();
    clock = { timer, members };
    clocks.set(intervalMs, clock);
  }
  const { members, timer } = clock;
  members.add(member);
  return () => {
    if (!members.delete(member) || members.size > 0) return;
    clearInterval(timer);
    if (clocks.get(intervalMs)?.timer === timer) clocks.delete(intervalMs);
  };
}

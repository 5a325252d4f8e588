/**
 * The throughput runner's settings (`run.ts` and the modules it uses), from `BENCH_*` environment
 * variables, read once at start-up. An invalid value stops the benchmark before anything starts.
 */
import { intEnv, numberEnv } from './runner-util.js';

/** The benchmark's settings; see the variables table in the package README. */
export const config = {
  duration: intEnv('BENCH_DURATION', 2, 1, 600),
  rounds: intEnv('BENCH_ROUNDS', 12, 1, 100),
  warmup: intEnv('BENCH_WARMUP', 3, 1, 60),
  connections: intEnv('BENCH_CONNECTIONS', 10, 1, 1000),
  serverCpu: process.env.BENCH_SERVER_CPU ?? '0',
  loadCpu: process.env.BENCH_LOAD_CPU ?? '1',
  /** Adds `--cpu-prof` to node servers (profiles in results/profiles); numbers are then not comparable. */
  profile: process.env.BENCH_PROFILE === '1',
  /** Cores' worth of CPU used by other programs during a run above which the run is redone. */
  maxNoise: numberEnv('BENCH_MAX_NOISE', 0.1, 0, 64),
  /**
   * Cores' worth of CPU the load generator may use during a head-to-head run before the run counts
   * as generator-bound and is redone: near a whole core, autocannon rather than the servers decides
   * how the requests split between the two targets, which pulls their ratio toward 1.
   */
  maxLoadCpu: numberEnv('BENCH_MAX_LOAD_CPU', 0.9, 0, 64),
  /** Seconds to wait for the machine to go quiet before a run (then it runs anyway, flagged). */
  quietWait: intEnv('BENCH_QUIET_WAIT', 120, 0, 3600),
  /** Attempts per measurement when other programs disturb it or (head-to-head) the generator saturates. */
  attempts: intEnv('BENCH_ATTEMPTS', 3, 1, 10),
  /** Rounds of the head-to-head measurement (each server against `bare` at the same time); 0 skips it. */
  togetherRounds: intEnv('BENCH_TOGETHER_ROUNDS', 10, 0, 100),
};

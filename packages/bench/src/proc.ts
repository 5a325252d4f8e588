/**
 * Child processes for the runner: pinned spawning, readiness, CPU accounting and bounded
 * shutdown. Every wait here has a deadline; nothing is killed except the children started here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Children still alive, killed if the runner itself exits early. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** `taskset -c <cpu>` prefix when pinning works on this machine, else nothing (with a warning). */
export function pinning(cpu: string): string[] {
  const r = spawnSync('taskset', ['-c', cpu, 'true'], { stdio: 'ignore', timeout: 5000 });
  if (r.status === 0) return ['taskset', '-c', cpu];
  process.stderr.write(`warning: cannot pin to CPU ${cpu} (taskset missing or CPU absent): results are noisier\n`);
  return [];
}

/** Starts `cmd args` behind the `pin` prefix (in `cwd`, undefined: this process's); `taskset` execs, so the pid is the program's own. */
export function start(
  pin: string[],
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  stdin: 'ignore' | 'pipe' = 'ignore',
): ChildProcess {
  const argv = [...pin, cmd, ...args];
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Collects a child's stdout and stderr as text (bounded to the last 64 KiB of each). */
export function capture(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  const keep = (s: string): string => (s.length > 65536 ? s.slice(-65536) : s);
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out = keep(out + d);
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err = keep(err + d);
  });
  return { stdout: () => out, stderr: () => err };
}

/** Resolves when `ready()` says so, rejects when the child exits first or after `timeoutMs`. */
export function waitUntil(child: ChildProcess, ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    let settled = false;
    const finish = (e?: Error): void => {
      if (settled) return;
      settled = true;
      child.off('exit', onExit);
      if (e === undefined) resolve();
      else reject(e);
    };
    const onExit = (code: number | null, signal: string | null): void =>
      finish(new Error(`${what} exited before it was ready (code ${code}, signal ${signal})`));
    child.once('exit', onExit);
    const tick = (): void => {
      if (settled) return;
      ready().then(
        (ok) => {
          if (ok) finish();
          else if (Date.now() > deadline) finish(new Error(`${what} not ready after ${timeoutMs} ms`));
          else setTimeout(tick, 50);
        },
        (e: unknown) => finish(e as Error),
      );
    };
    tick();
  });
}

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export function stop(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).stdout?.trim()) || 100;

/** User + system CPU seconds a process has used so far (Linux `/proc`); undefined elsewhere. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** A port free right now on 127.0.0.1 (the OS picks it; a race with other programs is possible but rare). */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * CPU seconds the whole machine has been busy (all cores: user, nice, system, steal; Linux
 * `/proc/stat`), to detect other programs competing with a run. Interrupt time is left out: our
 * own loopback traffic lands there. Undefined elsewhere.
 */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[7] ?? 0)) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** What `cpuDuring` measured around one piece of work. */
export interface CpuWindow<T> {
  value: T;
  /** Wall-clock seconds the work took. */
  wall: number;
  /** CPU seconds (user + system) each process used during the work, in the order given; null without `/proc`. */
  cpu: (number | null)[];
  /** Cores' worth of CPU used by programs other than the given processes; null without `/proc`. */
  noise: number | null;
}

/**
 * Runs `work` and reports the CPU the processes `pids` used meanwhile (`cpuSeconds`), and what
 * the rest of the machine used (`machineBusySeconds` minus theirs), to tell other programs apart.
 */
export async function cpuDuring<T>(pids: readonly (number | undefined)[], work: () => Promise<T>): Promise<CpuWindow<T>> {
  const before = pids.map(cpuSeconds);
  const busyBefore = machineBusySeconds();
  const t0 = performance.now();
  const value = await work();
  const wall = (performance.now() - t0) / 1000;
  const busyAfter = machineBusySeconds();
  const after = pids.map(cpuSeconds);
  const cpu = before.map((b, i) => {
    const a = after[i];
    return b === undefined || a === undefined ? null : a - b;
  });
  const ours = cpu.reduce<number | null>((sum, c) => (sum === null || c === null ? null : sum + c), 0);
  const noise =
    busyBefore === undefined || busyAfter === undefined || ours === null ? null : Math.max(0, (busyAfter - busyBefore - ours) / wall);
  return { value, wall, cpu, noise };
}

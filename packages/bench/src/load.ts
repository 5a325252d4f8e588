/**
 * The load generator: autocannon in its own long-lived process (load-worker.ts), pinned to the
 * load core, so the server's core does nothing but serve. Results are reduced to what the table needs.
 */
import { fileURLToPath } from 'node:url';
import type { AutocannonResult } from './autocannon.js';
import { toLoadResult, type LoadResult } from './load-result.js';
import type { LoadCommand } from './load-worker.js';
import type { ChildProcess } from 'node:child_process';
import { start, stop } from './proc.js';
import type { LoadRequest } from './servers.js';

const WORKER = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** Load settings shared by every run. */
export interface LoadOptions {
  /** `taskset -c <cpu>` prefix, or empty. */
  pin: string[];
  connections: number;
  /** Seconds. */
  duration: number;
  cwd: string;
}

/**
 * The load generator: one autocannon process (load-worker.ts) for the whole benchmark, pinned to
 * the load core, given one run at a time. Every run is bounded (duration + 30 s).
 */
export class LoadGenerator {
  private readonly child: ChildProcess;
  private readonly pending: ((line: string) => void)[] = [];
  private buffered = '';
  private stderr = '';
  private exited: Error | undefined;

  constructor(private readonly options: LoadOptions) {
    this.child = start(options.pin, process.execPath, [WORKER], process.env, options.cwd, 'pipe');
    // A worker that died makes the next write EPIPE: the exit handler reports it, not a crash.
    this.child.stdin!.on('error', () => undefined);
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.buffered += d;
      for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.pending.shift()?.(line);
      }
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.child.once('exit', (code, signal) => {
      this.exited = new Error(`autocannon worker exited (code ${code}, signal ${signal}): ${this.stderr.slice(-2000)}`);
      for (const p of this.pending.splice(0)) p('');
    });
  }

  /**
   * The worker's process id (`taskset` execs, so it is node's own): the runner reads the
   * generator's CPU from `/proc/<pid>/stat` around each run to tell when the generator saturates.
   */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Loads `url` with `request` (method, body, headers, expected status) for `duration` seconds (default: the options' duration). */
  async run(url: string, request: LoadRequest = {}, duration = this.options.duration): Promise<LoadResult> {
    const r = await this.send({ url, connections: this.options.connections, duration, ...request }, duration);
    if (Array.isArray(r)) throw new Error('autocannon answered several results for one target');
    return toLoadResult(r);
  }

  /**
   * Loads every target at the same time, each with the configured connections, for `duration`
   * seconds; one result per target, in order.
   */
  async runTogether(targets: ({ url: string } & LoadRequest)[], duration = this.options.duration): Promise<LoadResult[]> {
    const r = await this.send({ url: targets[0]?.url ?? '', connections: this.options.connections, duration, targets }, duration);
    if (!Array.isArray(r) || r.length !== targets.length) throw new Error('autocannon answered the wrong number of results');
    return r.map(toLoadResult);
  }

  private async send(cmd: LoadCommand, duration: number): Promise<AutocannonResult | AutocannonResult[]> {
    if (this.exited !== undefined) throw this.exited;
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.child.kill('SIGKILL');
          reject(new Error(`autocannon did not answer within ${duration + 30} s`));
        },
        (duration + 30) * 1000,
      );
      this.pending.push((l) => {
        clearTimeout(timer);
        resolve(l);
      });
      this.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
    });
    if (line === '' && this.exited !== undefined) throw this.exited;
    let r: AutocannonResult | AutocannonResult[] | { error: string };
    try {
      r = JSON.parse(line) as AutocannonResult | AutocannonResult[] | { error: string };
    } catch {
      throw new Error(`autocannon printed no JSON result: ${line.slice(0, 500)}`);
    }
    if ('error' in r) throw new Error(`autocannon failed: ${r.error}`);
    return r;
  }

  /** Ends the worker (closing stdin); resolves once it is gone (SIGKILL after 3 s). */
  close(): Promise<void> {
    this.child.stdin!.end();
    return stop(this.child);
  }
}

/** The middle value (mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

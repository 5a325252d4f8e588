import type { Cluster, Worker } from 'node:cluster';
import { createServer, type AddressInfo, type ListenOptions as NetListenOptions, type Server } from 'node:net';
import { availableParallelism } from 'node:os';
import { DEFAULT_LIMITS } from '../internal/defaults.js';
import { Application, type ListenOptions } from './application.js';
import { checkTransportOptions, type Http2ListenOptions, type TlsListenOptions } from './http2.js';
import { builtin } from '../util/builtin.js';

/** `node:cluster`, loaded by the first call that needs it (core/util/builtin.ts). */
const cluster = (): Cluster => builtin('node:cluster');

/**
 * How the workers share the port. `cluster`: the supervisor (the `node:cluster` primary) accepts
 * connections and hands them to the workers in turn (round-robin, except on Windows).
 * `reusePort`: every worker binds the port itself with `SO_REUSEPORT` and the kernel spreads new
 * connections (Node 22.12+ / 23.1+ on Linux and some BSDs).
 */
export type WorkerMode = 'cluster' | 'reusePort';

/** When a worker dies unexpectedly: exponential backoff before the respawn, and a crash-loop guard. */
export interface RestartPolicy {
  /** Delay (ms) before the first respawn; doubles with every death in the window. Default 100. */
  delay?: number;
  /** The backoff's cap (ms). Default 10 000. */
  maxDelay?: number;
  /** Respawns allowed within `window`; one more death and the supervisor gives up (exit 1). Default 10. */
  maxRestarts?: number;
  /** The crash-loop window (ms). Default 60 000. */
  window?: number;
}

/** Options of {@link serveOnCores}. */
export interface ServeOnCoresOptions {
  /** Worker processes: a positive integer, or `'auto'` for `os.availableParallelism()`. Default `'auto'`. */
  workers?: number | 'auto';
  /** TCP port; 0 picks a free one, shared by every worker. Default 0. */
  port?: number;
  /** Interface to bind. Default `'127.0.0.1'`. */
  host?: string;
  /**
   * TLS for every worker's server, as in `app.listen()` ({@link TlsListenOptions}). Each worker
   * runs the main script, so it reads the key itself: the key never crosses the IPC channel.
   */
  tls?: TlsListenOptions;
  /** HTTP/2, as in `app.listen()` ({@link ListenOptions.http2}). Default false. */
  http2?: boolean | Http2ListenOptions;
  /**
   * How the port is shared ({@link WorkerMode}). `'auto'` (default) uses `reusePort` on Linux when
   * this Node supports it (found by binding two probe sockets at start-up), else `cluster`.
   * Forcing `'reusePort'` where it is not supported fails at start-up.
   */
  mode?: 'auto' | WorkerMode;
  /** Deadline (ms) of each worker's `app.close()` on SIGTERM/SIGINT. Default: the application's `limits.shutdownDeadline`. */
  shutdownDeadline?: number;
  /** Respawn backoff and crash-loop guard ({@link RestartPolicy}). */
  restart?: RestartPolicy;
  /**
   * How a worker stops on SIGTERM/SIGINT (or when its supervisor is gone): resolves whether it
   * stopped cleanly (exit code 0, else 1). Default `app.close(deadline)`, clean when every request
   * drained. Give your own to also stop what the application owns (a store, background work),
   * e.g. `async (app, deadline) => (await app.close(deadline)).drained && (await store.close(), true)`.
   */
  close?: (app: Application, deadlineMs: number | undefined) => Promise<boolean>;
  /** Called once in the supervisor when every worker listens. */
  onReady?: (info: ServeReady) => void;
  /**
   * Print one line on stdout once every worker listens: `true` prints
   * `listening on http://HOST:PORT (N workers, MODE)`, a function prints what it returns.
   */
  printReady?: boolean | ((info: ServeReady) => string);
}

/** What the supervisor reports once every worker listens. */
export interface ServeReady {
  readonly host: string;
  readonly port: number;
  /** `http://HOST:PORT`, `https://` with `tls` (IPv6 hosts in brackets). */
  readonly url: string;
  readonly mode: WorkerMode;
  /** The workers' process ids. */
  readonly pids: readonly number[];
}

/** What {@link serveOnCores} resolves to: in the supervisor once all workers listen, in a worker once it listens. */
export type ServeOnCoresResult =
  | { readonly role: 'supervisor'; readonly ready: ServeReady }
  | { readonly role: 'worker'; readonly app: Application; readonly address: AddressInfo };

/** Makes the application; called once in every worker process, never in the supervisor. */
export type ApplicationFactory = () => Application | Promise<Application>;

/** Marks our workers, and carries what the supervisor resolved (mode, port) to them. */
const WORKER_ENV = 'JAXRS_PIPELINE_WORKER';
const READY = 'jaxrs-pipeline:worker-ready';
const FAILED = 'jaxrs-pipeline:worker-failed';
/** Beyond the shutdown deadline, how long the supervisor waits for workers before killing them. */
const KILL_GRACE_MS = 2000;

interface WorkerConfig {
  readonly port: number;
  readonly host: string;
  readonly mode: WorkerMode;
  readonly workers: number;
}

type WorkerMessage = { type: typeof READY; port: number; deadline: number } | { type: typeof FAILED; message: string };

/**
 * Serves one application on every core: the same call runs in both roles, so one `main.ts` works.
 * Run directly, it is the **supervisor**: it forks `workers` processes that re-run the main script,
 * restarts one that dies (exponential backoff; exit 1 once workers died more than
 * `restart.maxRestarts` times within `restart.window`), and reports readiness once all listen (`onReady`, `printReady`, and a
 * `{ type: 'ready' }` message to its parent when it has an IPC channel, as process managers expect).
 * On SIGTERM or SIGINT it stops respawning and forwards the signal; each worker drains like
 * `app.close(deadline)` and the supervisor exits 0 when every worker drained, 1 when one had to be
 * cut or failed; a second signal ends the supervisor at once (workers that lose it drain and exit).
 * In a **worker** it calls `createApp`, listens and resolves. An application
 * constructed with `singleProcess: true` is refused when more than one worker is asked for, as is
 * any start-up error in a worker: the supervisor prints it and exits 1. `inject()` and the testing
 * entry point never go through here.
 * @example
 * // main.ts
 * await serveOnCores(() => new Application({ resources: [HelloResource] }), { workers: 'auto', port: 8080, printReady: true });
 */
export async function serveOnCores(createApp: ApplicationFactory, options: ServeOnCoresOptions = {}): Promise<ServeOnCoresResult> {
  const raw = process.env[WORKER_ENV];
  if (cluster().isWorker && raw !== undefined) {
    // Not inherited by processes the application starts: they are not our workers.
    delete process.env[WORKER_ENV];
    return runWorker(createApp, JSON.parse(raw) as WorkerConfig, options);
  }
  if (cluster().isWorker) {
    throw new Error('serveOnCores: this process is a node:cluster worker forked by other code; call app.listen() in it instead');
  }
  checkOptions(options);
  // A key that does not match its certificate fails here, once, not in every worker.
  checkTransportOptions(options.tls, options.http2);
  return { role: 'supervisor', ready: await supervise(options) };
}

/**
 * Whether this Node and platform let several sockets bind one port with `SO_REUSEPORT`: binds two
 * probe servers to `host` on one port and closes both. Older Node ignores the `reusePort` option,
 * so the second bind fails there.
 * @example if (await reusePortSupported()) console.log('the kernel can spread connections');
 */
export async function reusePortSupported(host = '127.0.0.1'): Promise<boolean> {
  const first = createServer();
  const second = createServer();
  try {
    await bind(first, { port: 0, host, reusePort: true, exclusive: true } as NetListenOptions);
    const { port } = first.address() as AddressInfo;
    await bind(second, { port, host, reusePort: true, exclusive: true } as NetListenOptions);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return false;
    throw error;
  } finally {
    first.close();
    second.close();
  }
}

function bind(server: Server, options: NetListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function checkOptions(o: ServeOnCoresOptions): void {
  const fail = (name: string, want: string, got: unknown): never => {
    throw new TypeError(`serveOnCores: ${name} must be ${want}, got ${JSON.stringify(got)}`);
  };
  if (o.workers !== undefined && o.workers !== 'auto' && !(Number.isInteger(o.workers) && o.workers > 0)) {
    fail('workers', "a positive integer or 'auto'", o.workers);
  }
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) fail('port', '0-65535', o.port);
  if (o.mode !== undefined && !['auto', 'cluster', 'reusePort'].includes(o.mode)) fail('mode', "'auto', 'cluster' or 'reusePort'", o.mode);
  if (o.shutdownDeadline !== undefined && !(Number.isInteger(o.shutdownDeadline) && o.shutdownDeadline >= 0)) {
    fail('shutdownDeadline', 'a non-negative integer (ms)', o.shutdownDeadline);
  }
  for (const [key, value] of Object.entries(o.restart ?? {})) {
    if (!['delay', 'maxDelay', 'maxRestarts', 'window'].includes(key)) fail(`restart.${key}`, 'a known key', key);
    if (!(Number.isInteger(value) && (value as number) >= 0)) fail(`restart.${key}`, 'a non-negative integer', value);
  }
}

async function chooseMode(wanted: ServeOnCoresOptions['mode'], host: string): Promise<WorkerMode> {
  if (wanted === 'cluster') return 'cluster';
  if (wanted === 'auto' || wanted === undefined) {
    return process.platform === 'linux' && (await reusePortSupported(host)) ? 'reusePort' : 'cluster';
  }
  if (!(await reusePortSupported(host))) {
    throw new Error(
      `serveOnCores: mode 'reusePort' needs SO_REUSEPORT support (Node 22.12+ or 23.1+ on Linux); ` +
        `Node ${process.version} on ${process.platform} does not offer it: use mode 'cluster' or 'auto'`,
    );
  }
  return 'reusePort';
}

const log = (level: 'info' | 'warn' | 'error', message: string): void => {
  process.stderr.write(`${JSON.stringify({ level, message: `serveOnCores: ${message}` })}\n`);
};

function supervise(options: ServeOnCoresOptions): Promise<ServeReady> {
  const count = options.workers === undefined || options.workers === 'auto' ? availableParallelism() : options.workers;
  const host = options.host ?? '127.0.0.1';
  const policy = { delay: 100, maxDelay: 10_000, maxRestarts: 10, window: 60_000, ...options.restart };
  const live = new Map<Worker, { ready: boolean }>();
  const deaths: number[] = [];
  const respawns = new Set<NodeJS.Timeout>();
  // The port workers are told to bind; with reusePort and port 0, the first worker's port. In
  // cluster mode it stays as given: the primary shares one socket per (host, port) it was asked for.
  let port = options.port ?? 0;
  let boundPort = port;
  let mode: WorkerMode = 'cluster';
  let deadline = options.shutdownDeadline ?? DEFAULT_LIMITS.shutdownDeadline;
  let announced = false;
  let stopping = false;
  let exitCode = 0;

  return new Promise<ServeReady>((resolve, reject) => {
    const fork = (): void => {
      const config: WorkerConfig = { port, host, mode, workers: count };
      const worker = cluster().fork({ [WORKER_ENV]: JSON.stringify(config) });
      live.set(worker, { ready: false });
      worker.on('message', (m: WorkerMessage) => onMessage(worker, m));
      worker.once('exit', (code, signal) => onExit(worker, code, signal));
    };

    const onMessage = (worker: Worker, m: WorkerMessage): void => {
      if (m?.type === FAILED) {
        if (!stopping) log('error', `worker ${worker.process.pid} could not start: ${m.message}; stopping every worker`);
        stop('SIGTERM', 1);
        return;
      }
      if (m?.type !== READY) return;
      live.get(worker)!.ready = true;
      deadline = Math.max(deadline, m.deadline);
      boundPort = m.port;
      // With reusePort, port 0 is resolved by the first worker; the others bind the port it got.
      if (mode === 'reusePort' && port === 0) {
        port = m.port;
        for (let i = 1; i < count; i++) fork();
      }
      if (announced) log('info', `worker ${worker.process.pid} is ready`);
      else if (!stopping && [...live.values()].filter((w) => w.ready).length === count) announce();
    };

    const announce = (): void => {
      announced = true;
      const url = `${options.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
      const ready: ServeReady = { host, port: boundPort, url, mode, pids: [...live.keys()].map((w) => w.process.pid!) };
      const print = options.printReady;
      if (print !== undefined && print !== false) {
        process.stdout.write(`${print === true ? `listening on ${url} (${count} workers, ${mode})` : print(ready)}\n`);
      }
      options.onReady?.(ready);
      process.send?.({ type: 'ready', url, port: boundPort, mode, pids: ready.pids });
      resolve(ready);
    };

    const onExit = (worker: Worker, code: number | null, signal: string | null): void => {
      live.delete(worker);
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (live.size === 0) process.exit(exitCode);
        return;
      }
      const now = Date.now();
      deaths.push(now);
      while (deaths[0]! <= now - policy.window) deaths.shift();
      const how = signal === null ? `code ${String(code)}` : `signal ${signal}`;
      if (deaths.length > policy.maxRestarts) {
        log(
          'error',
          `workers died ${deaths.length} times within ${policy.window} ms (last: pid ${worker.process.pid} with ${how}): crash loop, giving up`,
        );
        stop('SIGTERM', 1);
        return;
      }
      const delay = Math.min(policy.delay * 2 ** (deaths.length - 1), policy.maxDelay);
      log('warn', `worker ${worker.process.pid} exited with ${how}; starting a new one in ${delay} ms`);
      const timer = setTimeout(() => {
        respawns.delete(timer);
        if (!stopping) fork();
      }, delay);
      respawns.add(timer);
    };

    const stop = (signal: NodeJS.Signals, code: number): void => {
      exitCode = Math.max(exitCode, code);
      if (stopping) return;
      stopping = true;
      for (const timer of respawns) clearTimeout(timer);
      if (live.size === 0) process.exit(exitCode);
      for (const worker of live.keys()) worker.process.kill(signal);
      // A worker stuck past its own deadline is killed: the supervisor must exit.
      setTimeout(() => {
        for (const worker of live.keys()) worker.process.kill('SIGKILL');
        exitCode = 1;
      }, deadline + KILL_GRACE_MS).unref();
    };

    process.once('SIGTERM', () => stop('SIGTERM', 0));
    process.once('SIGINT', () => stop('SIGINT', 0));

    chooseMode(options.mode, host).then((chosen) => {
      mode = chosen;
      const first = mode === 'reusePort' && port === 0 ? 1 : count;
      for (let i = 0; i < first; i++) fork();
    }, reject);
  });
}

async function runWorker(createApp: ApplicationFactory, config: WorkerConfig, options: ServeOnCoresOptions): Promise<ServeOnCoresResult> {
  let app: Application | undefined;
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    if (app === undefined) process.exit(0);
    const close = options.close ?? (async (a: Application, deadline: number | undefined) => (await a.close(deadline)).drained);
    close(app, options.shutdownDeadline).then(
      (clean) => process.exit(clean ? 0 : 1),
      (error: unknown) => {
        process.stderr.write(`serveOnCores: the worker's close failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The supervisor is gone (killed): drain and leave rather than serve unsupervised.
  process.on('disconnect', stop);
  try {
    app = await createApp();
    if (!(app instanceof Application)) {
      throw new TypeError(`createApp must return an Application, got ${Object.prototype.toString.call(app)}`);
    }
    if (app.singleProcess && config.workers > 1) {
      throw new Error(
        `the application is marked singleProcess (ApplicationOptions.singleProcess) and cannot run in ` +
          `${config.workers} processes: serve it with workers: 1, or remove singleProcess once its state is shared`,
      );
    }
    const listen: ListenOptions = {
      ...(config.mode === 'reusePort' ? { reusePort: true, exclusive: true } : {}),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      ...(options.http2 === undefined ? {} : { http2: options.http2 }),
    };
    const address = await app.listen(config.port, config.host, listen);
    // The supervisor's kill timer must outlast the shutdown delay and the drain together.
    const deadline = (options.shutdownDeadline ?? app.limits.shutdownDeadline) + app.limits.shutdownDelay;
    process.send!({ type: READY, port: address.port, deadline } satisfies WorkerMessage);
    return { role: 'worker', app, address };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The supervisor prints the reason once and stops every worker; this one leaves now.
    return new Promise<never>(() => {
      process.send!({ type: FAILED, message } satisfies WorkerMessage, () => process.exit(1));
    });
  }
}

import { createWriteStream } from 'node:fs';
import type { Logger } from '../../core/internal/observation.js';

/** The level names, lowest first. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * pino's numeric levels (trace 10 ... fatal 60), written as `level` on every line, so one log
 * pipeline reads the lines of `jsonLogger()` and of pino alike.
 */
export const LOG_LEVELS: Readonly<Record<LogLevel, number>> = Object.freeze({
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
});

/** Where {@link jsonLogger} writes: anything with a stream's `write(string)`. */
export interface LogDestination {
  write(chunk: string): unknown;
}

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** The lowest level written; calls below it do nothing. Default `'info'`, or `'silent'` for nothing at all. */
  level?: LogLevel | 'silent';
  /** A writable (default `process.stdout`) or a file path, appended to through one `fs.createWriteStream`. */
  destination?: LogDestination | string;
  /** `time` as epoch milliseconds (`'epoch'`, pino's default) or an ISO 8601 string (`'iso'`). Default `'epoch'`. */
  time?: 'epoch' | 'iso';
  /** Fields written on every line (pino's `base`), e.g. `{ service: 'users' }`. */
  base?: Record<string, unknown>;
}

const NAMES = Object.keys(LOG_LEVELS) as LogLevel[];
const noop = (): void => {};

/** Set by {@link JsonLogger}'s static block: see {@link renderedLineWriter}. */
let lineWriterOf: (logger: JsonLogger, level: LogLevel) => ((members: string, msgJson: string) => void) | 'off';

/**
 * A dependency-free logger writing one JSON line per call, pino's shape: `{"level":30,"time":...,
 * ...bindings, ...fields, "msg":"..."}` (the `level` is pino's number, see {@link LOG_LEVELS}).
 * Bindings of `child()` are serialised once, when the child is made, and a disabled level is a
 * no-op, so a child per request and a level below the threshold cost little. Each line is one
 * `write()` to the destination (a stream buffers while the previous write is in flight; nothing is
 * written synchronously to a file).
 */
export class JsonLogger implements Logger {
  readonly level: LogLevel | 'silent';
  private readonly out: LogDestination;
  private readonly iso: boolean;
  /** The bindings as JSON members, each preceded by a comma (`,"reqId":"a1"`), or ''. */
  private prefix: string;

  static {
    // A friend function: LoggingFeature's access line is written without building an object, and
    // needs the logger's own prefix, clock format and destination (kept private from users).
    lineWriterOf = (logger, level) => {
      if (logger[level] === noop) return 'off';
      const head = `{"level":${LOG_LEVELS[level]},"time":`;
      return (members, msgJson) => {
        const time = logger.iso ? `"${new Date().toISOString()}"` : String(Date.now());
        logger.out.write(`${head}${time}${logger.prefix}${members}${msgJson}}\n`);
      };
    };
  }

  trace: (obj: object, msg?: string) => void = noop;
  debug: (obj: object, msg?: string) => void = noop;
  info: (obj: object, msg?: string) => void = noop;
  warn: (obj: object, msg?: string) => void = noop;
  error: (obj: object, msg?: string) => void = noop;
  fatal: (obj: object, msg?: string) => void = noop;

  constructor(options: JsonLoggerOptions = {}) {
    const level = options.level ?? 'info';
    if (level !== 'silent' && !Object.hasOwn(LOG_LEVELS, level)) {
      throw new TypeError(`jsonLogger: level must be one of ${[...NAMES, 'silent'].join(', ')}, got ${String(level)}`);
    }
    if (options.time !== undefined && options.time !== 'epoch' && options.time !== 'iso') {
      throw new TypeError(`jsonLogger: time must be 'epoch' or 'iso', got ${String(options.time)}`);
    }
    this.level = level;
    this.iso = options.time === 'iso';
    this.out = destinationOf(options.destination);
    this.prefix = members(options.base ?? {});
    const threshold = level === 'silent' ? Infinity : LOG_LEVELS[level];
    for (const name of NAMES) {
      if (LOG_LEVELS[name] >= threshold) this[name] = this.writer(LOG_LEVELS[name]);
    }
  }

  /** A logger writing `bindings` on every line besides this one's. */
  child(bindings: Record<string, unknown>): JsonLogger {
    const child = new JsonLogger({ level: this.level, time: this.iso ? 'iso' : 'epoch', destination: this.out });
    child.prefix = this.prefix + members(bindings);
    return child;
  }

  private writer(level: number): (obj: object, msg?: string) => void {
    const head = `{"level":${level},"time":`;
    // The access line repeats one message: its JSON is kept, not made again per line.
    let lastMsg: string | undefined;
    let lastJson = '';
    return (obj, msg) => {
      const time = this.iso ? `"${new Date().toISOString()}"` : String(Date.now());
      let tail = '}\n';
      if (msg !== undefined) {
        if (msg !== lastMsg) {
          lastMsg = msg;
          lastJson = `,"msg":${JSON.stringify(msg)}`;
        }
        tail = `${lastJson}}\n`;
      }
      this.out.write(head + time + this.prefix + members(obj) + tail);
    };
  }
}

/**
 * For callers that render a known set of fields as JSON text themselves (LoggingFeature's access
 * line, cheaper than an object and `JSON.stringify`): a function writing, at `level`, exactly the
 * line `logger[level](fields, msg)` writes, given `members` (the fields' JSON members, each
 * preceded by a comma, as `JSON.stringify` writes them) and `msgJson` (`,"msg":"..."`, or '');
 * `'off'` when `level` is below the logger's threshold (a `JsonLogger`'s level is fixed), and
 * undefined when `logger` is not exactly a `JsonLogger` (a subclass may override the level
 * methods). Internal: not exported by the package.
 */
export function renderedLineWriter(logger: Logger, level: LogLevel): ((members: string, msgJson: string) => void) | 'off' | undefined {
  if (!(logger instanceof JsonLogger) || Object.getPrototypeOf(logger) !== JsonLogger.prototype) return undefined;
  return lineWriterOf(logger, level);
}

/** `obj`'s own enumerable members as JSON text, each preceded by a comma; '' for none. Errors keep message and stack. */
function members(obj: object): string {
  const json = hasError(obj) ? JSON.stringify(obj, errorReplacer) : JSON.stringify(obj);
  if (json === undefined || json.length <= 2) return '';
  return `,${json.slice(1, -1)}`;
}

/** Whether a member of `obj` is an Error (then the slower replacer runs; an access line has none). */
function hasError(obj: object): boolean {
  for (const key in obj) if ((obj as Record<string, unknown>)[key] instanceof Error) return true;
  return false;
}

/** `JSON.stringify` drops an Error's (non-enumerable) message and stack: write them as pino's `err` serialiser does. */
function errorReplacer(_key: string, value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const fields: Record<string, unknown> = { type: value.name, message: value.message, stack: value.stack };
  for (const key of Object.keys(value)) fields[key] = (value as unknown as Record<string, unknown>)[key];
  return fields;
}

function destinationOf(destination: LogDestination | string | undefined): LogDestination {
  if (destination === undefined) return process.stdout;
  if (typeof destination === 'string') return createWriteStream(destination, { flags: 'a' });
  if (typeof destination.write !== 'function') throw new TypeError('jsonLogger: destination must be a path or have a write(string) method');
  return destination;
}

/**
 * The default logger: JSON lines (pino's shape and numeric levels) on `destination`, stdout by default.
 * @example const log = jsonLogger({ level: 'info', destination: '/var/log/users.log' });
 */
export function jsonLogger(options: JsonLoggerOptions = {}): JsonLogger {
  return new JsonLogger(options);
}

import type { Feature, FeatureContext, RequestListener, RequestOutcome } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { REQUEST_ID_PROPERTY, REQUEST_LOGGER_PROPERTY, type Logger } from '../../core/internal/observation.js';
import { jsonLogger, LOG_LEVELS, type LogLevel } from './json-logger.js';
import { REDACTED_HEADERS, redactHeaders } from './redact.js';
import { RequestLogger } from './request-logger.js';

/** Options of {@link LoggingFeature}. */
export interface LoggingFeatureOptions {
  /** Where the lines go: a `pino` instance, `jsonLogger()`, any {@link Logger}. Default `jsonLogger()` (stdout, info). */
  logger?: Logger;
  /** One line per request when it ends, at `level` (default `'info'`); `false` for none. */
  accessLog?: { level?: LogLevel; message?: string } | false;
  /** Also write the request headers in the access line (`reqHeaders`), credentials redacted. Default false. */
  headers?: boolean;
  /** Header names redacted besides {@link REDACTED_HEADERS} (Authorization, Cookie, Set-Cookie, API keys). */
  redact?: readonly string[];
  /** The field holding the request id on every line. Default `'reqId'` (pino-http's and Fastify's). */
  requestIdKey?: string;
}

const OPTIONS = new Set(['logger', 'accessLog', 'headers', 'redact', 'requestIdKey']);

/**
 * Request logging: every request gets a logger (`requestLogger(ctx)`, or `currentRequest()?.logger`
 * with `RequestContextFeature`) whose lines carry its id (from `RequestIdFeature`), method and
 * route template, and, unless `accessLog: false`, one access line when it ends: status,
 * duration, body bytes in and out, method, route, path, id, remote address and user agent.
 * Request headers are not logged unless `headers: true`, and then with `Authorization`, `Cookie`,
 * `Set-Cookie` and API-key headers redacted. Give the application the same logger as its
 * `log` option so the library's own warnings and errors go there too.
 * @example
 * const log = jsonLogger({ level: 'info' });
 * new Application({ log, resources: [Users], providers: [new RequestIdFeature(), new LoggingFeature({ logger: log })] });
 */
export class LoggingFeature implements Feature {
  private readonly listener: LoggingListener;

  constructor(options: LoggingFeatureOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('LoggingFeature: options must be an object like { accessLog: false }');
    for (const key of Object.keys(options)) {
      if (!OPTIONS.has(key)) throw new TypeError(`LoggingFeature: unknown option ${key}; the options are ${[...OPTIONS].join(', ')}`);
    }
    const logger = options.logger ?? jsonLogger();
    for (const m of ['info', 'error', 'child'] as const) {
      if (typeof logger[m] !== 'function')
        throw new TypeError(`LoggingFeature: logger has no ${m}() method; pass a pino instance or jsonLogger()`);
    }
    const access = options.accessLog ?? {};
    const level = access === false ? undefined : (access.level ?? 'info');
    if (level !== undefined && !Object.hasOwn(LOG_LEVELS, level)) {
      throw new TypeError(`LoggingFeature: accessLog.level must be one of ${Object.keys(LOG_LEVELS).join(', ')}, got ${String(level)}`);
    }
    const idKey = options.requestIdKey ?? 'reqId';
    if (typeof idKey !== 'string' || idKey === '') throw new TypeError('LoggingFeature: requestIdKey must be a non-empty string');
    const redact =
      options.headers === true ? new Set([...REDACTED_HEADERS, ...(options.redact ?? []).map((h) => h.toLowerCase())]) : undefined;
    this.listener = new LoggingListener(
      logger,
      idKey,
      level,
      access === false ? 'request completed' : (access.message ?? 'request completed'),
      redact,
    );
  }

  setup(context: FeatureContext): void {
    context.register(this.listener);
  }
}

/** The listener behind {@link LoggingFeature} (registered by it). */
class LoggingListener implements RequestListener {
  constructor(
    private readonly logger: Logger,
    private readonly idKey: string,
    private readonly level: LogLevel | undefined,
    private readonly message: string,
    private readonly redact: ReadonlySet<string> | undefined,
  ) {}

  onRequest(ctx: ContainerRequestContext): ((outcome: RequestOutcome) => void) | undefined {
    ctx.setProperty(REQUEST_LOGGER_PROPERTY, new RequestLogger(this.logger, ctx, this.idKey));
    if (this.level === undefined) return undefined;
    return (outcome) => this.access(ctx, outcome);
  }

  /** The access line: flat fields, `undefined` ones dropped by JSON. */
  private access(ctx: ContainerRequestContext, o: RequestOutcome): void {
    const info = ctx.resourceInfo;
    const req = ctx.raw;
    const line: Record<string, unknown> = {
      [this.idKey]: ctx.getProperty(REQUEST_ID_PROPERTY),
      method: ctx.method,
      route: info === undefined ? undefined : ctx.basePath + info.path,
      path: ctx.path,
      status: o.status,
      durationMs: Math.round(o.durationMs * 1000) / 1000,
      requestBytes: o.requestBodySize,
      responseBytes: o.responseBodySize,
      remoteAddress: req.socket?.remoteAddress,
      userAgent: req.headers['user-agent'],
    };
    if (this.redact !== undefined) line.reqHeaders = redactHeaders(req.headers, this.redact);
    this.logger[this.level!](line, this.message);
  }
}

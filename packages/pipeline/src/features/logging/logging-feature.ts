import type { Feature, FeatureContext, RequestListener, RequestOutcome } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import { REQUEST_ID_PROPERTY, REQUEST_LOGGER_PROPERTY, type Logger } from '../../core/internal/observation.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { millisJson, RepeatedMember } from './access-line.js';
import { jsonLogger, LOG_LEVELS, renderedLineWriter, type LogLevel } from './json-logger.js';
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

/** The access line's own field names: a request id key among them makes the object path's duplicate handling apply. */
const ACCESS_FIELDS: ReadonlySet<string> = new Set([
  'method',
  'route',
  'path',
  'status',
  'durationMs',
  'requestBytes',
  'responseBytes',
  'remoteAddress',
  'userAgent',
  'reqHeaders',
]);

/** The listener behind {@link LoggingFeature} (registered by it). */
class LoggingListener implements RequestListener {
  /**
   * With `jsonLogger()` (the usual case) the access line is rendered as one string and written
   * through the logger's own line writer: the same text as the fields object through
   * `JSON.stringify`, without the object. Undefined for any other logger (pino), which gets the object.
   */
  private readonly rendered: ((members: string, msgJson: string) => void) | undefined;
  /** The access line is off: none asked, or a `jsonLogger()` whose level is above it. */
  private readonly noAccess: boolean;
  private readonly idHead: string;
  private readonly msgJson: string;
  private readonly methodMember = new RepeatedMember(',"method":');
  private readonly addressMember = new RepeatedMember(',"remoteAddress":');
  private readonly agentMember = new RepeatedMember(',"userAgent":');
  /** The last route's member (`,"route":"/api/users/{id}"`), by method and base path. */
  private lastInfo: ResourceInfo | undefined;
  private lastBase = '';
  private lastRoute = '';

  constructor(
    private readonly logger: Logger,
    private readonly idKey: string,
    private readonly level: LogLevel | undefined,
    private readonly message: string,
    private readonly redact: ReadonlySet<string> | undefined,
  ) {
    const writer = level === undefined ? 'off' : renderedLineWriter(logger, level);
    this.noAccess = writer === 'off';
    this.rendered = typeof writer === 'function' && !ACCESS_FIELDS.has(idKey) ? writer : undefined;
    this.idHead = `,${JSON.stringify(idKey)}:`;
    this.msgJson = `,"msg":${JSON.stringify(message)}`;
  }

  onRequest(ctx: ContainerRequestContext): ((outcome: RequestOutcome) => void) | undefined {
    ctx.setProperty(REQUEST_LOGGER_PROPERTY, new RequestLogger(this.logger, ctx, this.idKey));
    if (this.noAccess) return undefined;
    return (outcome) => this.access(ctx, outcome);
  }

  /** The access line: flat fields, `undefined` ones dropped by JSON. */
  private access(ctx: ContainerRequestContext, o: RequestOutcome): void {
    const id = ctx.getProperty(REQUEST_ID_PROPERTY);
    // An id that is not a string (a custom generate()) is written as the object path writes it.
    if (this.rendered === undefined || (id !== undefined && typeof id !== 'string')) {
      this.accessObject(ctx, o, id);
      return;
    }
    const req = ctx.raw;
    const info = ctx.resourceInfo;
    let line = id === undefined ? '' : this.idHead + JSON.stringify(id);
    line += this.methodMember.of(ctx.method);
    if (info !== undefined) line += this.routeMember(info, ctx.basePath);
    line += `,"path":${JSON.stringify(ctx.path)},"status":${o.status},"durationMs":${millisJson(o.durationMs)}`;
    if (o.requestBodySize !== undefined) line += `,"requestBytes":${o.requestBodySize}`;
    if (o.responseBodySize !== undefined) line += `,"responseBytes":${o.responseBodySize}`;
    line += this.addressMember.of(req.socket?.remoteAddress);
    line += this.agentMember.of(req.headers['user-agent']);
    if (this.redact !== undefined) line += `,"reqHeaders":${JSON.stringify(redactHeaders(req.headers, this.redact))}`;
    this.rendered(line, this.msgJson);
  }

  private routeMember(info: ResourceInfo, base: string): string {
    if (info !== this.lastInfo || base !== this.lastBase) {
      this.lastInfo = info;
      this.lastBase = base;
      this.lastRoute = `,"route":${JSON.stringify(base + info.path)}`;
    }
    return this.lastRoute;
  }

  /** The access line as an object of fields, for a logger of its own (pino). */
  private accessObject(ctx: ContainerRequestContext, o: RequestOutcome, id: unknown): void {
    const info = ctx.resourceInfo;
    const req = ctx.raw;
    const line: Record<string, unknown> = {
      [this.idKey]: id,
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

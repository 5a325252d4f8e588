import type { Constructor, Feature, FeatureContext } from '../../core/context/contracts.js';
// A value import: `@Context() request: ContainerRequestContext` needs the class in its metadata (`import type` emits Object).
import { ContainerRequestContext } from '../../core/context/request-context.js';
import { Response } from '../../core/http/response.js';
import { applicationClosing } from '../../core/internal/extensions.js';
import { Context } from '../../decorators/params.js';
import { GET, Path, Produces, ServedWhileClosing } from '../../decorators/resource.js';
import { ApiHidden, ApiOperation, ApiResponse, ApiTags, type JsonSchema } from '../openapi/decorators.js';
import { report, type HealthCheck, type HealthCheckKind, type HealthCheckReport, type HealthReport } from './checks.js';

/**
 * A probe route: `all` is `GET {path}` (every check), `live` `GET {path}/live`, `ready`
 * `GET {path}/ready`, `started` `GET {path}/started` (MicroProfile Health's endpoints).
 */
export type HealthProbe = 'all' | 'live' | 'ready' | 'started';

/** How a {@link HealthFeature} is configured; every field is optional. */
export interface HealthFeatureOptions {
  /** Where the probes are served, under the application's base path. Default `/health`. A literal path. */
  readonly path?: string;
  /** The application's checks (more can be added with {@link HealthFeature.addCheck}). */
  readonly checks?: readonly HealthCheck[];
  /**
   * Milliseconds a check may take when it does not say. Default 500: below Kubernetes's default
   * probe `timeoutSeconds` (1), so the probe answers with the reason before the kubelet gives up.
   */
  readonly timeoutMs?: number;
  /** Which probe routes to serve. Default all four. */
  readonly probes?: readonly HealthProbe[];
  /**
   * When the start-up probe turns UP: `'listening'` (default) as soon as the application answers
   * it, its start-up checks permitting (the request reached it, so it listens); `'manual'` once
   * the application calls {@link HealthFeature.markStarted} (warm-up after `listen()`), until
   * which the start-up and readiness probes carry a DOWN check named `started`.
   */
  readonly startup?: 'listening' | 'manual';
  /**
   * List the probes in the OpenAPI document (tag `health`). Default false: probes are for the
   * orchestrator, not the API's clients (Quarkus leaves them out of its document by default too).
   */
  readonly openApi?: boolean;
}

const KNOWN_OPTIONS = ['path', 'checks', 'timeoutMs', 'probes', 'startup', 'openApi'];
const PROBES: readonly HealthProbe[] = ['all', 'live', 'ready', 'started'];
const KINDS: readonly HealthCheckKind[] = ['liveness', 'readiness', 'startup'];
const DEFAULT_TIMEOUT_MS = 500;
/** Longest timeout accepted: a probe that waits longer than this is not a probe. */
const MAX_TIMEOUT_MS = 60_000;

/** Which kinds of check each probe runs (MicroProfile Health 4.0: `/health` runs every kind). */
const PROBE_KINDS: Readonly<Record<HealthProbe, readonly HealthCheckKind[]>> = {
  all: KINDS,
  live: ['liveness'],
  ready: ['readiness'],
  started: ['startup'],
};

/**
 * Liveness, readiness and start-up probes (MicroProfile Health 4.0, `@nestjs/terminus`) for an
 * application: `GET {path}` (every check), `{path}/live`, `{path}/ready` and `{path}/started`,
 * each answering `{ "status": "UP" | "DOWN", "checks": [{ "name", "status", "data"? }] }` with
 * 200 when UP, 503 when DOWN, `Cache-Control: no-store`. The application registers async checks
 * per kind, each with a timeout; a probe runs its checks concurrently. From the moment
 * `Application.close()` begins, readiness (and the `all` probe) carry a DOWN check named
 * `draining` while in-flight requests finish, and the probe routes keep answering
 * (`@ServedWhileClosing()`), liveness UP. The routes are resources the feature registers: the
 * application's global filters run on them (keep authentication and rate limits name-bound, or
 * skip these paths). Nothing runs on other routes.
 * @example
 * const health = new HealthFeature({
 *   checks: [{ name: 'database', kind: 'readiness', check: async (signal) => { await db.ping(signal); } }],
 * });
 * const app = new Application({ resources: [UserResource], providers: [health] });
 */
export class HealthFeature implements Feature {
  private readonly path: string;
  private readonly timeoutMs: number;
  private readonly probes: readonly HealthProbe[];
  private readonly manualStart: boolean;
  private readonly openApi: boolean;
  private readonly checks: HealthCheck[] = [];
  private started = false;

  constructor(options: HealthFeatureOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('HealthFeature: options must be an object like { path: "/health" }');
    for (const key of Object.keys(options)) {
      if (!KNOWN_OPTIONS.includes(key)) throw new TypeError(`HealthFeature: unknown option '${key}' (known: ${KNOWN_OPTIONS.join(', ')})`);
    }
    const path = options.path ?? '/health';
    if (typeof path !== 'string' || !/^\/[A-Za-z0-9\-._~/]*$/.test(path) || (path !== '/' && path.endsWith('/')) || path.includes('//')) {
      throw new TypeError(
        `HealthFeature: path must be a literal path that starts with '/' and does not end with one (letters, digits, - . _ ~), like '/health', got ${JSON.stringify(path)}`,
      );
    }
    this.path = path;
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    const probes = options.probes ?? PROBES;
    if (!Array.isArray(probes) || probes.length === 0 || probes.some((p) => !PROBES.includes(p))) {
      throw new TypeError(`HealthFeature: probes must be a non-empty list of ${PROBES.map((p) => `'${p}'`).join(', ')}`);
    }
    this.probes = [...new Set(probes)];
    const startup = options.startup ?? 'listening';
    if (startup !== 'listening' && startup !== 'manual') throw new TypeError(`HealthFeature: startup must be 'listening' or 'manual'`);
    this.manualStart = startup === 'manual';
    this.openApi = options.openApi === true;
    for (const c of options.checks ?? []) this.addCheck(c);
  }

  /**
   * Adds a check (before or after the application started: the next probe runs it). Throws a
   * `TypeError` naming the problem for a check without a name or function, with an unknown kind,
   * a bad timeout, or a name already taken.
   * @example health.addCheck({ name: 'cache', kind: 'readiness', check: () => cache.connected });
   */
  addCheck(check: HealthCheck): this {
    const where = `HealthFeature: check ${typeof check?.name === 'string' ? JSON.stringify(check.name) : '(unnamed)'}`;
    if (typeof check !== 'object' || check === null || typeof check.name !== 'string' || check.name === '') {
      throw new TypeError('HealthFeature: a check needs a non-empty name: { name, kind, check }');
    }
    if (typeof check.check !== 'function') throw new TypeError(`${where}: check must be a function (signal) => ...`);
    const kinds: readonly unknown[] = Array.isArray(check.kind) ? check.kind : [check.kind];
    if (kinds.length === 0 || kinds.some((k) => !KINDS.includes(k as HealthCheckKind))) {
      throw new TypeError(`${where}: kind must be ${KINDS.map((k) => `'${k}'`).join(', ')} or a list of them`);
    }
    if (check.timeoutMs !== undefined) checkTimeout(check.timeoutMs, `check ${JSON.stringify(check.name)} timeoutMs`);
    if (this.checks.some((c) => c.name === check.name) || check.name === 'draining' || check.name === 'started') {
      throw new TypeError(`${where}: the name is already taken (draining and started are the feature's own): give each check its own name`);
    }
    this.checks.push(check);
    return this;
  }

  /** With `startup: 'manual'`: the application has started; the start-up and readiness probes stop reporting `started` DOWN. */
  markStarted(): void {
    this.started = true;
  }

  /**
   * Runs the checks of one probe and reports them, as its route would answer (`draining`: the
   * application is closing). For an application that serves them elsewhere, or a test.
   * @example const { status } = await health.report('ready');
   */
  report(probe: HealthProbe, draining = false): Promise<HealthReport> {
    const kinds = PROBE_KINDS[probe];
    const checks = this.checks.filter((c) => (Array.isArray(c.kind) ? c.kind : [c.kind]).some((k) => kinds.includes(k)));
    const extra: HealthCheckReport[] = [];
    if (probe !== 'live') {
      if (this.manualStart && !this.started)
        extra.push({ name: 'started', status: 'DOWN', data: { reason: 'the application has not started yet' } });
      if (draining && probe !== 'started') extra.push({ name: 'draining', status: 'DOWN', data: { reason: 'the application is closing' } });
    }
    return report(checks, this.timeoutMs, extra);
  }

  /** Registers the probe routes (Feature). */
  setup(context: FeatureContext): void {
    for (const probe of this.probes) context.register(probeResource(this, probe, this.path, this.openApi));
  }

  /** The response of one probe for `request`. */
  async respond(probe: HealthProbe, request: ContainerRequestContext): Promise<Response> {
    const body = await this.report(probe, applicationClosing(request));
    return new Response(body.status === 'UP' ? 200 : 503, body, { 'cache-control': 'no-store' });
  }
}

function checkTimeout(ms: unknown, name: string): number {
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw new TypeError(`HealthFeature: ${name} must be an integer of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(ms)}`);
  }
  return ms;
}

const REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['UP', 'DOWN'] },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'status'],
        properties: {
          name: { type: 'string' },
          status: { type: 'string', enum: ['UP', 'DOWN'] },
          data: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
        },
      },
    },
  },
};

const SUMMARIES: Readonly<Record<HealthProbe, string>> = {
  all: 'Health: every check',
  live: 'Liveness probe',
  ready: 'Readiness probe (DOWN while draining)',
  started: 'Start-up probe',
};

/**
 * The resource of one probe: a class per probe, so that only the chosen ones are routes; GET at
 * a literal path, served while the application closes.
 */
function probeResource(feature: HealthFeature, probe: HealthProbe, path: string, openApi: boolean): Constructor {
  const sub = probe === 'all' ? undefined : probe;
  @Path(path)
  @Produces('application/json')
  class HealthProbeResource {
    @GET(sub)
    @ServedWhileClosing()
    @ApiOperation({ summary: SUMMARIES[probe], operationId: `health${probe[0]!.toUpperCase()}${probe.slice(1)}` })
    @ApiResponse(200, { type: REPORT_SCHEMA, description: 'UP' })
    @ApiResponse(503, { type: REPORT_SCHEMA, description: 'DOWN: the report names the failing checks' })
    probe(@Context() request: ContainerRequestContext): Promise<Response> {
      return feature.respond(probe, request);
    }
  }
  if (openApi) ApiTags('health')(HealthProbeResource);
  else ApiHidden()(HealthProbeResource);
  return HealthProbeResource;
}

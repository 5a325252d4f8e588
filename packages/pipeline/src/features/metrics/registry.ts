import type { MetricAttributes, MetricOptions, MetricsCounter, MetricsHistogram, MetricsMeter, MetricsUpDownCounter } from './meter.js';
import { escapeHelp, escapeLabelValue, formatNumber, labelName, prometheusName, type PrometheusType } from './prometheus-names.js';

/** The `Content-Type` of {@link MetricsRegistry.expose}: the Prometheus text exposition format 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Bucket upper bounds of a histogram created without advice: OpenTelemetry's default explicit
 * bucket boundaries (metrics SDK specification, "Explicit Bucket Histogram Aggregation").
 */
export const DEFAULT_HISTOGRAM_BUCKETS: readonly number[] = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

/** An OpenTelemetry instrument name (metrics API, "Instrument name syntax"). */
const INSTRUMENT_NAME = /^[A-Za-z][A-Za-z0-9_./-]{0,254}$/;

/** A synchronous gauge: the last value recorded wins (OpenTelemetry's `Gauge`). */
export interface MetricsGauge {
  record(value: number, attributes?: MetricAttributes): void;
}

type InstrumentKind = 'counter' | 'upDownCounter' | 'gauge' | 'histogram';

/** One series: the labels rendered once (`a="x",b="y"`), and its value or buckets. */
interface Series {
  readonly labels: string;
  value: number;
  /** Histograms: the count of each bucket (not cumulative), the last one `+Inf`. */
  readonly buckets: Float64Array | undefined;
  sum: number;
}

const NO_ATTRIBUTES: MetricAttributes = Object.freeze({});

/** One instrument: its Prometheus name and type, and a series per distinct attribute set. */
class Family {
  readonly series = new Map<string, Series>();
  /**
   * Frozen attribute objects seen before, by identity: a caller that prepares its attribute objects
   * once (as `HttpMetricsFeature` does per route) skips building the key. Only frozen objects are
   * remembered, since a mutable one could change under its entry.
   */
  private readonly byIdentity = new WeakMap<object, Series>();
  /** The last frozen attribute object and its series: a hot route records with one comparison. */
  private lastAttrs: object | undefined;
  private lastSeries: Series | undefined;

  constructor(
    readonly otelName: string,
    readonly kind: InstrumentKind,
    readonly promName: string,
    readonly type: PrometheusType,
    readonly help: string,
    readonly unit: string | undefined,
    readonly bounds: readonly number[] | undefined,
  ) {}

  seriesFor(attributes: MetricAttributes | undefined): Series {
    const attrs = attributes ?? NO_ATTRIBUTES;
    if (attrs === this.lastAttrs) return this.lastSeries!;
    const known = this.byIdentity.get(attrs);
    if (known !== undefined) {
      this.lastAttrs = attrs;
      this.lastSeries = known;
      return known;
    }
    const names = Object.keys(attrs)
      .filter((k) => attrs[k] !== undefined)
      .sort();
    let key = '';
    for (const k of names) key += `${k}\u0000${String(attrs[k])}\u0001`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labels: renderLabels(names, attrs, this.type),
        value: 0,
        buckets: this.bounds === undefined ? undefined : new Float64Array(this.bounds.length + 1),
        sum: 0,
      };
      this.series.set(key, series);
    }
    if (Object.isFrozen(attrs)) this.byIdentity.set(attrs, series);
    return series;
  }

  expose(out: string[]): void {
    if (this.help !== '') out.push(`# HELP ${this.promName} ${escapeHelp(this.help)}`);
    out.push(`# TYPE ${this.promName} ${this.type}`);
    for (const s of this.series.values()) {
      if (s.buckets === undefined) {
        out.push(`${this.promName}${s.labels === '' ? '' : `{${s.labels}}`} ${formatNumber(s.value)}`);
        continue;
      }
      const sep = s.labels === '' ? '' : ',';
      let cumulative = 0;
      for (let i = 0; i < s.buckets.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < this.bounds!.length ? formatNumber(this.bounds![i]!) : '+Inf';
        out.push(`${this.promName}_bucket{${s.labels}${sep}le="${le}"} ${cumulative}`);
      }
      const braces = s.labels === '' ? '' : `{${s.labels}}`;
      out.push(`${this.promName}_sum${braces} ${formatNumber(s.sum)}`);
      out.push(`${this.promName}_count${braces} ${s.value}`);
    }
  }
}

/**
 * Labels in attribute-name order. Two attributes that sanitize to the same label name have their
 * values joined with `;` (the OpenTelemetry-Prometheus compatibility specification's rule).
 */
function renderLabels(names: readonly string[], attrs: MetricAttributes, type: PrometheusType): string {
  const labels = new Map<string, string>();
  for (const k of names) {
    const label = labelName(k, type);
    const value = String(attrs[k]);
    const before = labels.get(label);
    labels.set(label, before === undefined ? value : `${before};${value}`);
  }
  return [...labels].map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',');
}

/**
 * An in-process metrics registry: counters, up-down counters, gauges and histograms, created
 * through the same calls as OpenTelemetry's `Meter` (so code written against {@link MetricsMeter}
 * records into either), and exposed in the Prometheus text format 0.0.4 by {@link expose}.
 *
 * Names and attributes are OpenTelemetry's (`http.server.request.duration`, unit `s`,
 * `{ 'http.route': '/users/{id}' }`); the exposition converts them as OpenTelemetry's
 * Prometheus compatibility specification says (`http_server_request_duration_seconds`,
 * `http_route="/users/{id}"`). Every distinct attribute set is a series kept for the life of the
 * registry: keep attribute values of low cardinality (a route template, never a raw path).
 * Measurements that an instrument cannot take (a negative or non-finite value on a counter or a
 * histogram) are dropped, as OpenTelemetry's SDK drops them, so recording never throws.
 *
 * @example
 * const registry = new MetricsRegistry();
 * const jobs = registry.createCounter('jobs.done', { description: 'Jobs finished.' });
 * jobs.add(1, { 'job.kind': 'export' });
 * registry.expose(); // '# HELP jobs_done_total Jobs finished.\n# TYPE jobs_done_total counter\njobs_done_total{job_kind="export"} 1\n'
 */
export class MetricsRegistry implements MetricsMeter {
  private readonly families = new Map<string, Family>();
  private readonly promNames = new Map<string, string>();

  /** A monotonic sum (Prometheus `counter`, named with `_total`). */
  createCounter(name: string, options: MetricOptions = {}): MetricsCounter {
    const family = this.family(name, 'counter', options);
    return {
      add(value: number, attributes?: MetricAttributes): void {
        if (!(value >= 0) || value === Infinity) return;
        family.seriesFor(attributes).value += value;
      },
    };
  }

  /** A sum that goes up and down (Prometheus `gauge`). */
  createUpDownCounter(name: string, options: MetricOptions = {}): MetricsUpDownCounter {
    const family = this.family(name, 'upDownCounter', options);
    return {
      add(value: number, attributes?: MetricAttributes): void {
        if (!Number.isFinite(value)) return;
        family.seriesFor(attributes).value += value;
      },
    };
  }

  /** A gauge: the last value recorded for an attribute set (Prometheus `gauge`). */
  createGauge(name: string, options: MetricOptions = {}): MetricsGauge {
    const family = this.family(name, 'gauge', options);
    return {
      record(value: number, attributes?: MetricAttributes): void {
        if (Number.isNaN(value)) return;
        family.seriesFor(attributes).value = value;
      },
    };
  }

  /**
   * A histogram with explicit buckets (`options.advice.explicitBucketBoundaries`, else
   * {@link DEFAULT_HISTOGRAM_BUCKETS}); exposed as cumulative `_bucket{le="..."}` series ending
   * with `le="+Inf"`, then `_sum` and `_count`.
   */
  createHistogram(name: string, options: MetricOptions = {}): MetricsHistogram {
    const family = this.family(name, 'histogram', options);
    const bounds = family.bounds!;
    return {
      record(value: number, attributes?: MetricAttributes): void {
        if (!(value >= 0) || value === Infinity) return;
        const s = family.seriesFor(attributes);
        let i = 0;
        // Bounds are inclusive upper limits (`le`), as Prometheus buckets are.
        while (i < bounds.length && value > bounds[i]!) i++;
        s.buckets![i]!++;
        s.sum += value;
        s.value++;
      },
    };
  }

  /** Every instrument and series, in the Prometheus text exposition format 0.0.4 ({@link PROMETHEUS_CONTENT_TYPE}). */
  expose(): string {
    const out: string[] = [];
    for (const f of this.families.values()) f.expose(out);
    return out.length === 0 ? '' : `${out.join('\n')}\n`;
  }

  private family(name: string, kind: InstrumentKind, options: MetricOptions): Family {
    if (typeof name !== 'string' || !INSTRUMENT_NAME.test(name)) {
      throw new TypeError(
        `MetricsRegistry: instrument name ${JSON.stringify(name)} is not valid: a letter, then up to 254 letters, digits, '_', '.', '-' or '/'`,
      );
    }
    if (typeof options !== 'object' || options === null) throw new TypeError(`MetricsRegistry: options of ${name} must be an object`);
    const bounds = kind === 'histogram' ? checkBounds(name, options.advice?.explicitBucketBoundaries) : undefined;
    const existing = this.families.get(name);
    if (existing !== undefined) {
      // OpenTelemetry hands back the same instrument for the same name; a different kind, unit or
      // set of buckets would make two different metrics of one name.
      if (existing.kind !== kind || existing.unit !== options.unit || String(existing.bounds) !== String(bounds)) {
        throw new TypeError(
          `MetricsRegistry: ${name} already exists as a ${existing.kind}${existing.unit === undefined ? '' : ` of unit ${existing.unit}`}; ` +
            `create it again with the same kind, unit and buckets, or give the new instrument another name`,
        );
      }
      return existing;
    }
    const type: PrometheusType = kind === 'counter' ? 'counter' : kind === 'histogram' ? 'histogram' : 'gauge';
    const promName = prometheusName(name, options.unit, type);
    const clash = this.promNames.get(promName);
    if (clash !== undefined) {
      throw new TypeError(`MetricsRegistry: ${name} and ${clash} would both be exposed as ${promName}: rename one of them`);
    }
    this.promNames.set(promName, name);
    const family = new Family(name, kind, promName, type, options.description ?? '', options.unit, bounds);
    this.families.set(name, family);
    return family;
  }
}

function checkBounds(name: string, given: readonly number[] | undefined): readonly number[] {
  if (given === undefined) return DEFAULT_HISTOGRAM_BUCKETS;
  const ok = Array.isArray(given) && given.every((b, i) => Number.isFinite(b) && (i === 0 || b > given[i - 1]!));
  if (!ok) {
    throw new TypeError(`MetricsRegistry: the buckets of ${name} must be finite numbers in increasing order, got ${JSON.stringify(given)}`);
  }
  return Object.freeze([...given]);
}

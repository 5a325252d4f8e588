/**
 * The instrument-creation API that the library's metrics record through: the subset of
 * OpenTelemetry's `Meter` (metrics API, "Meter operations") that HTTP server metrics need, written
 * structurally so that a real `Meter` from `@opentelemetry/api` (`metrics.getMeter('app')`) is one
 * as it is, and the library's {@link MetricsRegistry} is another. Nothing here imports OpenTelemetry.
 */

/** An attribute (label) value; `undefined` leaves the attribute out. */
export type MetricAttributeValue = string | number | boolean;

/** Attributes of one measurement, as OpenTelemetry names them (Prometheus calls them labels). */
export interface MetricAttributes {
  readonly [name: string]: MetricAttributeValue | undefined;
}

/** How an instrument is described (OpenTelemetry's `MetricOptions`, the fields used here). */
export interface MetricOptions {
  /** One line of text; the Prometheus `# HELP`. */
  readonly description?: string;
  /** UCUM unit (`s`, `By`, `{request}`): Prometheus names get the matching suffix (`_seconds`, `_bytes`). */
  readonly unit?: string;
  /** Hints; a histogram's bucket upper bounds, ascending (OpenTelemetry's instrument advice). */
  readonly advice?: { readonly explicitBucketBoundaries?: number[] };
}

/** Records a distribution of values (durations, sizes). */
export interface MetricsHistogram {
  record(value: number, attributes?: MetricAttributes): void;
}

/** A monotonic sum: `add` only non-negative values. */
export interface MetricsCounter {
  add(value: number, attributes?: MetricAttributes): void;
}

/** A sum that goes up and down (in-flight requests, queue length). */
export interface MetricsUpDownCounter {
  add(value: number, attributes?: MetricAttributes): void;
}

/**
 * Creates instruments: OpenTelemetry's `Meter` satisfies it, and so does {@link MetricsRegistry}.
 * @example
 * const meter: MetricsMeter = new MetricsRegistry(); // or metrics.getMeter('users') from @opentelemetry/api
 * const jobs = meter.createCounter('jobs.done', { description: 'Jobs done.', unit: '{job}' });
 * jobs.add(1, { 'job.kind': 'export' });
 */
export interface MetricsMeter {
  createHistogram(name: string, options?: MetricOptions): MetricsHistogram;
  createCounter(name: string, options?: MetricOptions): MetricsCounter;
  createUpDownCounter(name: string, options?: MetricOptions): MetricsUpDownCounter;
}

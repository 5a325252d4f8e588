export type {
  MetricAttributes,
  MetricAttributeValue,
  MetricOptions,
  MetricsCounter,
  MetricsHistogram,
  MetricsMeter,
  MetricsUpDownCounter,
} from './meter.js';
export { DEFAULT_HISTOGRAM_BUCKETS, MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from './registry.js';
export type { MetricsGauge } from './registry.js';
export { HTTP_BODY_SIZE_BUCKETS, HTTP_DURATION_BUCKETS, HttpMetricsFeature } from './http-metrics-feature.js';
export type { HttpMetricsFeatureOptions } from './http-metrics-feature.js';
export { metricsResource } from './metrics-resource.js';
export type { MetricsSource } from './metrics-resource.js';
export { serveMetrics } from './serve-metrics.js';
export type { MetricsServer, ServeMetricsOptions } from './serve-metrics.js';

export { HealthFeature } from './health-feature.js';
export type { HealthFeatureOptions, HealthProbe } from './health-feature.js';
export type {
  HealthCheck,
  HealthCheckKind,
  HealthCheckOutcome,
  HealthCheckReport,
  HealthCheckResult,
  HealthData,
  HealthReport,
  HealthStatus,
} from './checks.js';

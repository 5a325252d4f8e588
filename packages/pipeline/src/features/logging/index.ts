export type { Logger } from '../../core/internal/observation.js';
export { JsonLogger, jsonLogger, LOG_LEVELS } from './json-logger.js';
export type { JsonLoggerOptions, LogDestination, LogLevel } from './json-logger.js';
export { RequestIdFeature, requestId } from './request-id.js';
export type { RequestIdOptions } from './request-id.js';
export { LoggingFeature } from './logging-feature.js';
export type { LoggingFeatureOptions } from './logging-feature.js';
export { requestLogger } from './request-logger.js';
export { REDACTED, REDACTED_HEADERS, redactHeaders } from './redact.js';

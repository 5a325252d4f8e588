export { GzipFeature } from './gzip-feature.js';
export type { GzipFeatureOptions } from './gzip-feature.js';
export { GzipErrorCode, GzipReaderInterceptor } from './gzip-reader-interceptor.js';
export type { GzipReaderOptions } from './gzip-reader-interceptor.js';
export { GzipWriterInterceptor } from './gzip-writer-interceptor.js';
export { GzipTagFilter } from './gzip-tag-filter.js';
export type { GzipWriterOptions } from './gzip-writer-interceptor.js';

export { ETagFeature } from './etag-feature.js';
export type { ETagFeatureOptions } from './etag-feature.js';

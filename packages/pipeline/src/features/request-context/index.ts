export { currentRequest, RequestContextFeature } from './request-context-feature.js';
export type { CurrentRequest } from './request-context-feature.js';

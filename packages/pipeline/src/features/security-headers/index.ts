/**
 * Security headers on every response (docs/security-headers.md).
 * @example
 * new Application({ resources: [Users], providers: [new SecurityHeadersFeature()] });
 */
export { SecurityHeaders, SecurityHeadersFeature } from './security-headers-feature.js';
export type { SecurityHeadersOptions } from './security-headers-feature.js';

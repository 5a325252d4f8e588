export { CorsFilter } from './cors-filter.js';
export type { CorsOptions } from './cors-filter.js';

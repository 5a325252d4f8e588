/**
 * `@jaxrs-node/pipeline/multipart`: multipart entities (Jakarta REST 3.1 §4.2 `EntityPart`) on
 * busboy, an optional peer dependency needed only by applications that import this entry point.
 */
export { MultipartFeature } from './multipart-feature.js';
export { MultipartReader } from './reader.js';
export type { MultipartOptions } from './reader.js';
export { MultipartWriter } from './writer.js';
export { EntityPart } from './entity-part.js';
export type { EntityPartInit, EntityPartOptions } from './entity-part.js';
export { MultipartBody, readMultipart } from './multipart-body.js';
export { MultipartForm, KEEP_IN_MEMORY_BYTES } from './form.js';
export { DEFAULT_MULTIPART_LIMITS } from './limits.js';
export type { MultipartLimits } from './limits.js';
export { MultipartErrorCode } from './errors.js';
export { safeFilename } from './filename.js';

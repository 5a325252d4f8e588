/**
 * OpenAPI 3.1 documents built from the routes and constraints the application already declares.
 * @example
 * new Application({ resources: [UserResource], providers: [new OpenApiFeature({ info: { title: 'Users', version: '1.0.0' } })] });
 */
export { OpenApiFeature, buildOpenApi } from './openapi-feature.js';
export { ApiHidden, ApiOperation, ApiResponse, ApiSchema, ApiTags, ArrayOf } from './decorators.js';
export type { ApiHeader, ApiOperationOptions, ApiRequestBodyOptions, ApiResponseOptions, JsonSchema } from './decorators.js';
export type { FilterDoc, OpenApiOptions, OperationDoc, SecurityRule } from './options.js';
export type { OpenApiDocument } from './document.js';
export { OPENAPI_VERSION } from './document.js';

import { NameBinding } from '@jaxrs-node/pipeline';

/**
 * The service's name bindings: each check is bound to the resources that need it, never decided
 * by path tests inside one global filter (issue #3).
 */
/** HTTP Basic with the admin account (`/api/admin/**`). */
export const BasicAuth = NameBinding('BasicAuth');
/** A signed bearer token (`/api/protected/**`). */
export const BearerAuth = NameBinding('BearerAuth');
/** An `X-API-Key` (`/api/external/**` only). */
export const ApiKeyAuth = NameBinding('ApiKeyAuth');
/** Per-client request quota with `X-Rate-Limit-*` headers (the user endpoints and login). */
export const RateLimited = NameBinding('RateLimited');
/** Adds `customField` to the written entity (`/api/custom-data`), see CustomFieldInterceptor. */
export const Enriched = NameBinding('Enriched');
/** The upload's declared size is checked against the configured limits (`/api/files/upload`), see UploadLimitFilter. */
export const UploadLimited = NameBinding('UploadLimited');

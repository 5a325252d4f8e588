/**
 * JSR-250 style authorization: annotate resources with `RolesAllowed`, `PermitAll`, `DenyAll`
 * and register {@link RolesAllowedFeature} after an authentication filter that sets
 * `ctx.securityContext`.
 * @example
 * \@Path('/api/admin') \@RolesAllowed('ADMIN')
 * class AdminResource { \@GET() list() { ... } \@GET() \@Path('/ping') \@PermitAll() ping() { ... } }
 */
export { RolesAllowed, PermitAll, DenyAll } from './annotations.js';
export { RolesAllowedFeature, RolesAllowedFilter, DenyAllFilter } from './roles-allowed-feature.js';
export type { Challenge, RolesAllowedFeatureOptions } from './roles-allowed-feature.js';

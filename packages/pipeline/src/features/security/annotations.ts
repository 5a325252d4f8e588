import { NameBinding } from '../../decorators/binding.js';

/**
 * Only callers in at least one of these roles may call the method (JSR-250 `@RolesAllowed`).
 * On a class it covers every method; a method-level security annotation replaces it.
 * Enforced by {@link RolesAllowedFeature}: 401 when nobody is authenticated, 403 when the caller
 * lacks every role. Providers read the roles with `resourceInfo.getBinding(RolesAllowed)`.
 * @example
 * \@Path('/api/admin') \@RolesAllowed('ADMIN') class AdminResource { ... }
 */
export const RolesAllowed = NameBinding<string[]>('RolesAllowed');

/**
 * Anyone may call the method, authenticated or not (JSR-250 `@PermitAll`). On a method it
 * overrides a class-level `RolesAllowed`.
 * @example
 * \@RolesAllowed('USER') class Users { \@GET() \@Path('/count') \@PermitAll() count() { ... } }
 */
export const PermitAll = NameBinding('PermitAll');

/**
 * Nobody may call the method: always 403, since no credentials would help (JSR-250 `@DenyAll`).
 * @example
 * \@DELETE() \@DenyAll() purge() { ... }
 */
export const DenyAll = NameBinding('DenyAll');

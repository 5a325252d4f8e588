import { SERVER_ONLY, type ServerOnly } from './server-only.js';

/** The authenticated caller. */
export interface Principal {
  readonly name: string;
  readonly [claim: string]: unknown;
}

/**
 * JAX-RS `SecurityContext`: set by an authentication filter, read by later filters and resources.
 * @example
 * ctx.securityContext = SecurityContext.of({ name: 'alice' }, ['ADMIN'], 'Bearer');
 */
export class SecurityContext implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  constructor(
    readonly principal: Principal | undefined,
    readonly roles: ReadonlySet<string>,
    /** `Basic`, `Bearer`, `API-Key`... */
    readonly authenticationScheme: string | undefined,
    readonly secure = false,
  ) {}

  static of(principal: Principal, roles: Iterable<string> = [], scheme?: string): SecurityContext {
    return new SecurityContext(principal, new Set(roles), scheme);
  }

  /** Is someone authenticated? */
  get authenticated(): boolean {
    return this.principal !== undefined;
  }

  isUserInRole(role: string): boolean {
    return this.roles.has(role);
  }
}

/** The shared context of an unauthenticated request. */
export const ANONYMOUS = new SecurityContext(undefined, new Set(), undefined);

import { ForbiddenError, NotAuthorizedError } from '../../core/http/errors.js';
import { findClassMeta } from '../../core/model/metadata.js';
import { Priorities } from '../../core/util/priorities.js';
import type { ContainerRequestFilter, DynamicFeature, FeatureContext } from '../../core/context/contracts.js';
import type { ContainerRequestContext } from '../../core/context/request-context.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import type { NameBindingDecorator } from '../../decorators/binding.js';
import { Priority } from '../../decorators/provider.js';
import { requireBindingProvider } from '../../core/internal/extensions.js';
import { DenyAll, PermitAll, RolesAllowed } from './annotations.js';

/** The `WWW-Authenticate` value of a 401, fixed or chosen per request (e.g. by path). */
export type Challenge = string | ((request: ContainerRequestContext) => string);

/** Options of {@link RolesAllowedFeature}. */
export interface RolesAllowedFeatureOptions {
  /** `WWW-Authenticate` of the 401 (RFC 9110 §11.6.1 requires one). Default `Bearer realm="api"`. */
  challenge?: Challenge;
}

const DEFAULT_CHALLENGE = 'Bearer realm="api"';

/**
 * Enforces `RolesAllowed` (AUTHORIZATION priority, after authentication filters): 401 with
 * `WWW-Authenticate` when nobody is authenticated, 403 when the caller has none of the roles
 * (RFC 9110 §15.5.2 and §15.5.4; Jakarta REST 3.1 §10.2.5 `SecurityContext`). Holds only
 * immutable configuration: one instance serves every request concurrently (Processing rules §7).
 */
@Priority(Priorities.AUTHORIZATION)
export class RolesAllowedFilter implements ContainerRequestFilter {
  constructor(
    readonly roles: readonly string[],
    private readonly challenge: Challenge = DEFAULT_CHALLENGE,
  ) {}

  filterRequest(ctx: ContainerRequestContext): void {
    const sc = ctx.securityContext;
    if (sc === undefined || !sc.authenticated) {
      throw new NotAuthorizedError(challengeFor(this.challenge, ctx), 'Authentication is required', { code: 'PIPE_NOT_AUTHENTICATED' });
    }
    for (const role of this.roles) if (sc.isUserInRole(role)) return;
    // The message names no roles: 4xx messages reach the client and should not map the policy.
    throw new ForbiddenError('The caller lacks a required role', { code: 'PIPE_FORBIDDEN' });
  }
}

/** Enforces `DenyAll`: always 403, authenticated or not, since no credentials would help. */
@Priority(Priorities.AUTHORIZATION)
export class DenyAllFilter implements ContainerRequestFilter {
  filterRequest(_ctx: ContainerRequestContext): void {
    throw new ForbiddenError('Access to this method is denied', { code: 'PIPE_FORBIDDEN' });
  }
}

/**
 * JSR-250 authorization as a `DynamicFeature` (Jersey's `RolesAllowedDynamicFeature`). For each
 * resource method, at start-up, the method's own annotation decides; only when it has none does
 * the class's. Within one level the order is DenyAll, then RolesAllowed, then PermitAll. A
 * class-level annotation of a superclass covers subclasses that declare none (fail closed).
 * Methods without any of the three get no filter.
 * @example
 * new Application({ providers: [new BearerAuthFilter(), new RolesAllowedFeature()] });
 */
export class RolesAllowedFeature implements DynamicFeature {
  private readonly challenge: Challenge;

  constructor(options: RolesAllowedFeatureOptions = {}) {
    const challenge = options.challenge ?? DEFAULT_CHALLENGE;
    if (typeof challenge === 'string') checkChallenge(challenge);
    else if (typeof challenge !== 'function') throw new TypeError('RolesAllowedFeature: challenge must be a string or a function');
    this.challenge = challenge;
  }

  configure(resourceInfo: ResourceInfo, context: FeatureContext): void {
    const rule = securityRule(resourceInfo);
    if (rule === undefined || rule.kind === 'permit') return;
    const where = `${resourceInfo.resourceClass.name}.${resourceInfo.methodName}`;
    if (rule.kind === 'deny') {
      context.register(new DenyAllFilter(), { priority: Priorities.AUTHORIZATION });
      return;
    }
    for (const role of rule.roles) {
      if (typeof role !== 'string' || role === '') throw new TypeError(`@RolesAllowed on ${where}: roles must be non-empty strings`);
    }
    // An empty list admits nobody authenticated (JSR-250 reading); 401 still comes first.
    const roles = Object.freeze([...(rule.roles as string[])]);
    context.register(new RolesAllowedFilter(roles, this.challenge), { priority: Priorities.AUTHORIZATION });
  }
}

type Bindings = ReadonlyMap<NameBindingDecorator, readonly unknown[]>;
type SecurityRule = { kind: 'deny' } | { kind: 'permit' } | { kind: 'roles'; roles: readonly unknown[] };

/**
 * `resourceInfo.bindings` merges method and class bindings, which loses which level a PermitAll
 * came from, so the levels are read from the decorator metadata; the merged map is the fallback
 * for hand-built ResourceInfo objects whose class carries no decorators.
 */
function securityRule(info: ResourceInfo): SecurityRule | undefined {
  return (
    ruleOf(findLevel(info.resourceClass, (c) => findClassMeta(c)?.methods.get(info.methodName)?.bindings)) ??
    ruleOf(findLevel(info.resourceClass, (c) => findClassMeta(c)?.bindings)) ??
    ruleOf(info.bindings)
  );
}

function findLevel(ctor: Function, read: (c: object) => Bindings | undefined): Bindings | undefined {
  // Nearest class first; bounded by the prototype chain, which ends at Function.prototype.
  for (let c: unknown = ctor; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const b = read(c);
    if (b !== undefined && ruleOf(b) !== undefined) return b;
  }
  return undefined;
}

function ruleOf(b: Bindings | undefined): SecurityRule | undefined {
  if (b === undefined) return undefined;
  if (b.has(DenyAll as NameBindingDecorator)) return { kind: 'deny' };
  const roles = b.get(RolesAllowed as unknown as NameBindingDecorator);
  if (roles !== undefined) return { kind: 'roles', roles };
  if (b.has(PermitAll as NameBindingDecorator)) return { kind: 'permit' };
  return undefined;
}

function challengeFor(challenge: Challenge, ctx: ContainerRequestContext): string {
  if (typeof challenge === 'string') return challenge;
  const value = challenge(ctx);
  // A bad value would make writeHead throw after the error was mapped: fail here, as a 500.
  checkChallenge(value);
  return value;
}

function checkChallenge(value: unknown): void {
  // Control characters but HTAB (CR/LF above all) in a header value are response splitting (RFC 9110 §5.5).
  if (typeof value !== 'string' || value.trim() === '' || /[\x00-\x08\x0a-\x1f\x7f]/.test(value)) {
    throw new TypeError(`RolesAllowedFeature: invalid WWW-Authenticate challenge ${JSON.stringify(value)}`);
  }
}

// @RolesAllowed and @DenyAll with nothing enforcing them would serve every caller (fail open):
// build() refuses them unless RolesAllowedFeature, or a provider bound to them, is registered.
for (const binding of [RolesAllowed, DenyAll]) {
  requireBindingProvider({
    binding,
    actedOnBy: RolesAllowedFeature,
    fix: 'register new RolesAllowedFeature() in providers (after the authentication filter that sets the security context)',
  });
}

import type { DependencyContainer } from 'tsyringe';
import type { NameBindingDecorator } from '../context/resource-info.js';
import { buildRoutes } from './build-routes.js';
import { routeChecks } from './route-checks.js';
import { effectiveResource, findClassMeta } from '../model/metadata.js';
import { diFailure, methodNames, PROVIDER_CONTRACTS, type ModelProblems } from '../model/model-problems.js';
import {
  bodyProviders,
  splitBodyProviders,
  type BodyProviders,
  type MapperEntry,
  type PathEntry,
  type RouteMethod,
} from '../internal/model.js';
import { DEFAULT_PRIORITY } from '../util/priorities.js';
import {
  ascending,
  descending,
  has,
  instances,
  withMethod,
  type ProviderEntry,
  type RegistrationOptions,
} from '../model/provider-entry.js';
import type {
  Constructor,
  ContainerRequestFilter,
  ContainerResponseFilter,
  ContextResolver,
  DynamicFeature,
  ExceptionMapper,
  Feature,
  FeatureConfiguration,
  FeatureContext,
  MessageBodyReader,
  MessageBodyWriter,
  ParamConverterProvider,
  RequestListener,
  RequestScope,
  TypeToken,
  WriterInterceptor,
} from '../context/contracts.js';
import { nameOf } from '../util/type-name.js';
import { exclusiveRoleOf, type ExclusiveRole } from '../internal/exclusive-roles.js';
import type { Router } from '../routing/router.js';

export type { RegistrationOptions } from '../model/provider-entry.js';

export interface Registration extends RegistrationOptions {
  readonly target: Constructor | object;
  /** Given in `resources`: must be a resource class. */
  readonly asResource?: boolean;
  /** The feature whose `setup()` registered it (named in start-up messages). */
  readonly owner?: object;
}

export interface BuildInput {
  readonly registrations: readonly Registration[];
  readonly container: DependencyContainer;
  readonly appBindings: ReadonlySet<NameBindingDecorator>;
  readonly defaultScope: 'singleton' | 'request';
  /** `resolveContext` is undefined when no ContextResolver is registered, so writers skip the lookup per request. */
  readonly defaultProviders: (resolveContext: ((contextType: TypeToken, type: TypeToken) => unknown) | undefined) => object[];
  /** Where start-up problems are collected (reported by the caller once the model is built). */
  readonly problems: ModelProblems;
  /** The application's deadline for methods without `@Deadline` (ms), if any. */
  readonly deadline?: number;
  /** What features are told of the application ({@link FeatureContext.configuration}). */
  readonly configuration: FeatureConfiguration;
}

export interface BuiltModel {
  readonly router: Router<PathEntry>;
  readonly preMatchFilters: ContainerRequestFilter[];
  readonly globalResponseFilters: ContainerResponseFilter[];
  readonly globalWriterInterceptors: WriterInterceptor[];
  readonly mappers: MapperEntry[];
  readonly body: BodyProviders;
  readonly routes: RouteMethod[];
  /** `RequestListener`s in priority order (empty: none). */
  readonly requestListeners: RequestListener[];
  /** `RequestScope`s in priority order, outermost first (empty: none). */
  readonly requestScopes: RequestScope[];
  /** Paths (relative to the base path) of the GET methods marked `@ServedWhileClosing()` (empty: none). */
  readonly servedWhileClosing: string[];
}

const isClass = (x: unknown): x is Constructor => typeof x === 'function';

/**
 * Builds the whole application model once: features applied, providers resolved and placed,
 * then every resource method's chains merged and sorted, parameters compiled and routes frozen
 * (build-routes.ts).
 */
export function buildModel(input: BuildInput): BuiltModel {
  const { container } = input;
  let order = 0;
  const resources: Constructor[] = [];
  const providers: ProviderEntry[] = [];
  const dynamicFeatures: DynamicFeature[] = [];
  /** The feature that registered each provider instance (itself when registered directly). */
  const owners = new Map<object, object>();
  /** When each registered object (feature or provider) was taken from the queue: messages name owners in that order. */
  const seen = new Map<object, number>();
  const { problems } = input;
  /** Resolves a class; on failure records why (with the likely fixes) and answers undefined. */
  const tryInstantiate = (t: Constructor | object, role: string): object | undefined => {
    if (!isClass(t)) return t;
    try {
      return container.resolve(t) as object;
    } catch (e) {
      problems.error('PIPELINE_DI_FAILED', diFailure(t, role, e));
      return undefined;
    }
  };
  const instantiate = (t: Constructor | object): object => tryInstantiate(t, 'a provider') ?? {};

  const entry = (target: Constructor | object, opts: RegistrationOptions, rank: number): ProviderEntry => {
    const instance = instantiate(target);
    const ctor = (isClass(target) ? target : target.constructor) as Constructor;
    const meta = findClassMeta(ctor);
    const bindings = meta === undefined ? [] : [...meta.bindings.keys()];
    const preMatching = meta?.preMatching ?? false;
    const bound = !preMatching && bindings.some((b) => !input.appBindings.has(b));
    return {
      instance,
      ctor,
      bindings: bound ? bindings : [],
      preMatching,
      priority: opts.priority ?? meta?.priority ?? DEFAULT_PRIORITY,
      rank: rank === 2 ? 2 : bound ? 1 : 0,
      order: order++,
      errorType: opts.errorType ?? meta?.errorType,
      contextType: opts.contextType ?? meta?.contextType,
    };
  };

  // Registrations in order; a Feature's registrations join the end of the queue.
  const queue = [...input.registrations];
  while (queue.length > 0) {
    const reg = queue.shift()!;
    const t = reg.target;
    if (isClass(t) && isResource(t)) {
      if (!resources.includes(t)) {
        resources.push(t);
        checkRootResource(t, problems);
      }
      continue;
    }
    if (reg.asResource === true) {
      problems.error(...notAResource(t));
      continue;
    }
    const instance = tryInstantiate(t, 'a provider');
    if (instance === undefined) continue;
    if (!seen.has(instance)) seen.set(instance, seen.size);
    if (has(instance, 'setup')) {
      const ctx: FeatureContext = {
        register(provider, options) {
          queue.push({ target: provider, ...options, owner: instance });
          return this;
        },
        configuration: input.configuration,
      };
      (instance as Feature).setup(ctx);
    }
    if (has(instance, 'configure')) dynamicFeatures.push(instance as DynamicFeature);
    if (isProviderInstance(instance)) {
      providers.push(entry(instance, reg, 0));
      if (!owners.has(instance)) owners.set(instance, reg.owner ?? instance);
    } else if (!has(instance, 'setup') && !has(instance, 'configure')) problems.error(...notAProvider(instance));
  }

  checkExclusiveRoles(owners, seen, problems);

  const contextResolvers = withMethod(providers, 'getContext').sort(ascending);
  const resolveContext = (contextType: TypeToken, type: TypeToken): unknown => {
    for (const p of contextResolvers) {
      if (p.contextType !== undefined && p.contextType !== contextType) continue;
      const v = (p.instance as ContextResolver).getContext(type);
      if (v !== undefined) return v;
    }
    return undefined;
  };

  const requestFilters = withMethod(providers, 'filterRequest');
  const responseFilters = withMethod(providers, 'filterResponse');
  const writerInterceptors = withMethod(providers, 'aroundWriteTo');
  const global = (list: ProviderEntry[]): ProviderEntry[] => list.filter((p) => p.rank === 0);

  const defaults = splitBodyProviders(input.defaultProviders(contextResolvers.length === 0 ? undefined : resolveContext));
  const body = bodyProviders(
    [...instances<MessageBodyReader>(withMethod(providers, 'readFrom')), ...defaults.readers],
    [...instances<MessageBodyWriter>(withMethod(providers, 'writeTo')), ...defaults.writers],
    new Set<object>([...defaults.readers, ...defaults.writers]),
  );
  const mappers: MapperEntry[] = withMethod(providers, 'toResponse')
    .sort(ascending)
    .flatMap((p) => {
      if (p.errorType === undefined) {
        problems.error(
          'PIPELINE_MAPPER_WITHOUT_TYPE',
          `ExceptionMapper ${p.ctor.name} does not say which errors it maps: add @MapsError(ErrorType) to the class or register it with { errorType: ErrorType }`,
        );
        return [];
      }
      return [{ errorType: p.errorType, priority: p.priority, mapper: p.instance as ExceptionMapper, name: nameOf(p.instance) }];
    });

  const { router, routes } = buildRoutes({
    resources,
    defaultScope: input.defaultScope,
    instantiate: (cls) => tryInstantiate(cls, 'a resource'),
    checkResolvable: (cls) => {
      const missing = unresolvableToken(container, cls);
      if (missing !== undefined) problems.error('PIPELINE_DI_FAILED', diFailure(cls, 'a per-request resource', new Error(missing)));
    },
    problems,
    deadline: input.deadline === undefined ? undefined : { ms: input.deadline },
    providerBindings: providers.map((p) => ({
      name: p.ctor.name,
      bound: p.rank === 1,
      declared: [...(findClassMeta(p.ctor)?.bindings.keys() ?? [])],
    })),
    dynamicFeatures,
    configuration: input.configuration,
    dynamicEntry: (provider, options) => entry(provider, options, 2),
    postFilters: requestFilters.filter((p) => !p.preMatching),
    readerInterceptors: withMethod(providers, 'aroundReadFrom'),
    responseFilters,
    writerInterceptors,
    converters: instances<ParamConverterProvider>(withMethod(providers, 'getConverter')),
    checkRoute: routeChecks(body),
  });
  return {
    router,
    preMatchFilters: instances<ContainerRequestFilter>(requestFilters.filter((p) => p.preMatching)),
    globalResponseFilters: instances<ContainerResponseFilter>(global(responseFilters), descending),
    globalWriterInterceptors: instances<WriterInterceptor>(global(writerInterceptors)),
    mappers,
    body,
    routes,
    requestListeners: instances<RequestListener>(withMethod(providers, 'onRequest')),
    requestScopes: instances<RequestScope>(withMethod(providers, 'runInScope')),
    servedWhileClosing: closingPaths(routes, problems),
  };
}

/**
 * Why the container could not build `cls` per request, found without building it (a per-request
 * resource is built for each request, not at start-up, so its constructor may do per-request work):
 * a constructor parameter injected by a string or symbol token (`@inject('Repo')`) that nothing
 * registered, in `cls` or in a class it depends on, which tsyringe reports only when it resolves
 * (every request a 500). Reads tsyringe's own parameter metadata (`design:paramtypes`, and the
 * `injectionTokens` its `@inject` writes); other tokens (`injectAll`, optional, `delay`, transforms)
 * are left to the container. Undefined when nothing is missing.
 */
function unresolvableToken(container: DependencyContainer, cls: Function, seen: Function[] = []): string | undefined {
  if (seen.includes(cls) || seen.length > 8 || container.isRegistered(cls as Constructor, true)) return undefined;
  seen.push(cls);
  const types = (Reflect.getMetadata('design:paramtypes', cls) as unknown[] | undefined) ?? [];
  const tokens = (Reflect.getOwnMetadata('injectionTokens', cls) as Record<string, unknown> | undefined) ?? {};
  const count = Math.max(types.length, ...Object.keys(tokens).map((k) => Number(k) + 1));
  for (let i = 0; i < count; i++) {
    const token = i in tokens ? plainToken(tokens[i]) : types[i];
    if (typeof token === 'string' || typeof token === 'symbol') {
      if (!container.isRegistered(token, true)) {
        return `the token ${String(token)} (constructor argument ${i} of ${cls.name}) is not registered; register it (container.register(${typeof token === 'string' ? JSON.stringify(token) : 'TOKEN'}, ...))`;
      }
    } else if (typeof token === 'function' && token !== Object && token !== Function) {
      const deeper = unresolvableToken(container, token, seen);
      if (deeper !== undefined) return deeper;
    }
  }
  return undefined;
}

/**
 * The token of one `@inject` descriptor: tsyringe writes the token itself, or (newer versions)
 * `{ token, multiple, isOptional }`; `injectAll`, optional and transformed injections are left out
 * (undefined): they do not fail for a missing registration, or do so their own way.
 */
function plainToken(descriptor: unknown): unknown {
  if (typeof descriptor !== 'object' || descriptor === null || !('token' in descriptor)) return descriptor;
  const d = descriptor as { token: unknown; multiple?: unknown; isOptional?: unknown; transform?: unknown };
  return d.multiple === true || d.isOptional === true || d.transform !== undefined ? undefined : d.token;
}

/**
 * Two providers taking one exclusive role (two content-coding features, say) would both run on
 * every request: refused here, once per pair of owners (a feature registering three such
 * providers is named once), naming the features (or providers) that registered them and the fix.
 */
function checkExclusiveRoles(owners: ReadonlyMap<object, object>, seen: ReadonlyMap<object, number>, problems: ModelProblems): void {
  const byRole = new Map<string, { role: ExclusiveRole; owners: Set<object> }>();
  for (const [instance, owner] of owners) {
    const role = exclusiveRoleOf(instance);
    if (role === undefined) continue;
    let group = byRole.get(role.key);
    if (group === undefined) byRole.set(role.key, (group = { role, owners: new Set() }));
    group.owners.add(owner);
  }
  const reported = new Set<string>();
  for (const { role, owners: set } of byRole.values()) {
    if (set.size < 2) continue;
    const names = [...set].sort((a, b) => (seen.get(a) ?? 0) - (seen.get(b) ?? 0)).map((o) => o.constructor?.name ?? 'object');
    const who = new Set(names).size < names.length ? `${names.join(' and ')} (the same class registered twice)` : names.join(' and ');
    const message = `${who} are both registered: ${role.what}. ${role.fix}`;
    if (reported.has(message)) continue;
    reported.add(message);
    problems.error('PIPELINE_PROVIDER_CONFLICT', message);
  }
}

/**
 * The literal paths of the GET methods marked `@ServedWhileClosing()`, checked here once: the
 * closing application compares a request's path with them as a string, without routing it, so a
 * template, another HTTP method or a sub-resource method (routed through its locator) is refused.
 */
function closingPaths(routes: readonly RouteMethod[], problems: ModelProblems): string[] {
  const paths: string[] = [];
  for (const r of routes) {
    if (!r.servedWhileClosing) continue;
    const where = `${r.info.resourceClass.name}.${r.info.methodName}`;
    const why =
      r.httpMethod !== 'GET'
        ? `it answers ${r.httpMethod}, and only GET (with its HEAD) may be`
        : r.located
          ? 'it is a sub-resource method, reached through a locator'
          : r.info.path.includes('{')
            ? `its path ${r.info.path} has a template variable`
            : undefined;
    if (why === undefined) paths.push(r.info.path);
    else
      problems.error(
        'PIPELINE_CLOSING_ROUTE_INVALID',
        `@ServedWhileClosing() on ${where} cannot apply: ${why}. Put it on a GET method of a root resource whose full path is literal (e.g. @GET('health/live')), or remove it`,
      );
  }
  return paths;
}

function isResource(cls: Constructor): boolean {
  const meta = effectiveResource(cls);
  if (meta === undefined) return false;
  if (meta.path !== undefined) return true;
  for (const m of meta.methods.values()) if (m.meta.httpMethods.length > 0) return true;
  return false;
}

/**
 * A root resource needs its `@Path` (Jakarta REST 3.1 §3.1: root resource classes carry one; its own
 * or a contract class's it extends): without one its methods would be served at the root by
 * accident, usually a class meant as a sub-resource listed in `resources` by mistake. A class with
 * a `@Path` but nothing to serve is a warning, as Jersey's "resource is empty".
 */
function checkRootResource(cls: Constructor, problems: ModelProblems): void {
  const meta = effectiveResource(cls);
  if (meta === undefined) return;
  const methods = [...meta.methods.entries()];
  const served = methods.filter(([, m]) => m.meta.httpMethods.length > 0 || m.meta.path !== undefined);
  if (meta.path === undefined) {
    const names = served.map(([name]) => name).join(', ');
    problems.error(
      'PIPELINE_RESOURCE_WITHOUT_PATH',
      `${cls.name} is registered as a root resource (resource methods: ${names}) but has no class-level @Path: ` +
        `add @Path('/') to mount it at the root (or @Path('/...') elsewhere); if it is a sub-resource, remove it from resources ` +
        `and return it from a sub-resource locator`,
    );
  } else if (served.length === 0) {
    problems.warn(
      'PIPELINE_EMPTY_RESOURCE',
      `${cls.name} has @Path('${meta.path}') but no resource method and no sub-resource locator: it serves nothing; ` +
        `add @GET()/@POST()/... to a method (or @Path to a method returning a sub-resource), or remove it from resources`,
    );
  }
}

/** Why a `resources` entry is not a resource, and the fix. */
function notAResource(t: Constructor | object): ['PIPELINE_RESOURCE_NOT_A_CLASS' | 'PIPELINE_NOT_A_RESOURCE', string] {
  if (!isClass(t)) {
    const name = (t as object).constructor?.name ?? 'object';
    return [
      'PIPELINE_RESOURCE_NOT_A_CLASS',
      `resources: an instance of ${name} was given where a class is expected: pass ${name} itself (the container builds it), or register the instance as a provider`,
    ];
  }
  return [
    'PIPELINE_NOT_A_RESOURCE',
    `${t.name} is listed in resources but has no @Path and no resource method: add @Path('/...') to the class and @GET()/@POST()/... to a method, or register it under providers if it is a provider`,
  ];
}

/** Why a registered object is not a provider: the methods it has and the ones that are recognised. */
function notAProvider(instance: object): ['PIPELINE_NOT_A_PROVIDER', string] {
  const name = instance.constructor?.name ?? 'object';
  const own = methodNames(instance);
  const known = PROVIDER_CONTRACTS.map(([m, c]) => `${m} (${c})`).join(', ');
  return [
    'PIPELINE_NOT_A_PROVIDER',
    `${name} is registered as a provider but implements no provider contract${own.length > 0 ? ` (it has ${own.join(', ')})` : ''}: ` +
      `rename the method to one that is recognised: ${known}`,
  ];
}

const PROVIDER_METHODS = [
  'filterRequest',
  'filterResponse',
  'aroundReadFrom',
  'aroundWriteTo',
  'readFrom',
  'writeTo',
  'getConverter',
  'toResponse',
  'getContext',
  'onRequest',
  'runInScope',
];
function isProviderInstance(o: object): boolean {
  return PROVIDER_METHODS.some((m) => has(o, m));
}

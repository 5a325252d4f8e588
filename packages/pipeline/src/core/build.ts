import type { DependencyContainer } from 'tsyringe';
import type { NameBindingDecorator } from '../decorators/binding.js';
import { buildRoutes } from './build-routes.js';
import { findClassMeta } from './metadata.js';
import { bodyProviders, splitBodyProviders, type BodyProviders, type MapperEntry, type PathEntry, type RouteMethod } from './model.js';
import { DEFAULT_PRIORITY } from './priorities.js';
import { ascending, descending, has, instances, withMethod, type ProviderEntry, type RegistrationOptions } from './provider-entry.js';
import type {
  Constructor,
  ContainerRequestFilter,
  ContainerResponseFilter,
  ContextResolver,
  DynamicFeature,
  ExceptionMapper,
  Feature,
  FeatureContext,
  MessageBodyReader,
  MessageBodyWriter,
  ParamConverterProvider,
  TypeToken,
  WriterInterceptor,
} from './providers.js';
import { nameOf } from './request-filters.js';
import type { Router } from './router.js';

export type { RegistrationOptions } from './provider-entry.js';

export interface Registration extends RegistrationOptions {
  readonly target: Constructor | object;
}

export interface BuildInput {
  readonly registrations: readonly Registration[];
  readonly container: DependencyContainer;
  readonly appBindings: ReadonlySet<NameBindingDecorator>;
  readonly defaultScope: 'singleton' | 'request';
  /** `resolveContext` is undefined when no ContextResolver is registered, so writers skip the lookup per request. */
  readonly defaultProviders: (resolveContext: ((contextType: TypeToken, type: TypeToken) => unknown) | undefined) => object[];
}

export interface BuiltModel {
  readonly router: Router<PathEntry>;
  readonly preMatchFilters: ContainerRequestFilter[];
  readonly globalResponseFilters: ContainerResponseFilter[];
  readonly globalWriterInterceptors: WriterInterceptor[];
  readonly mappers: MapperEntry[];
  readonly body: BodyProviders;
  readonly routes: RouteMethod[];
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
  const instantiate = (t: Constructor | object): object => (isClass(t) ? (container.resolve(t) as object) : t);

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
      if (!resources.includes(t)) resources.push(t);
      continue;
    }
    const instance = instantiate(t);
    if (has(instance, 'setup')) {
      const ctx: FeatureContext = {
        register(provider, options) {
          queue.push({ target: provider, ...options });
          return this;
        },
      };
      (instance as Feature).setup(ctx);
    }
    if (has(instance, 'configure')) dynamicFeatures.push(instance as DynamicFeature);
    if (isProviderInstance(instance)) providers.push(entry(instance, reg, 0));
  }

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
  );
  const mappers: MapperEntry[] = withMethod(providers, 'toResponse')
    .sort(ascending)
    .map((p) => {
      if (p.errorType === undefined)
        throw new Error(`ExceptionMapper ${p.ctor.name} needs @MapsError(ErrorType) or the errorType registration option`);
      return { errorType: p.errorType, priority: p.priority, mapper: p.instance as ExceptionMapper, name: nameOf(p.instance) };
    });

  const { router, routes } = buildRoutes({
    resources,
    defaultScope: input.defaultScope,
    instantiate,
    dynamicFeatures,
    dynamicEntry: (provider, options) => entry(provider, options, 2),
    postFilters: requestFilters.filter((p) => !p.preMatching),
    readerInterceptors: withMethod(providers, 'aroundReadFrom'),
    responseFilters,
    writerInterceptors,
    converters: instances<ParamConverterProvider>(withMethod(providers, 'getConverter')),
  });
  return {
    router,
    preMatchFilters: instances<ContainerRequestFilter>(requestFilters.filter((p) => p.preMatching)),
    globalResponseFilters: instances<ContainerResponseFilter>(global(responseFilters), descending),
    globalWriterInterceptors: instances<WriterInterceptor>(global(writerInterceptors)),
    mappers,
    body,
    routes,
  };
}

function isResource(cls: Constructor): boolean {
  const meta = findClassMeta(cls);
  if (meta === undefined) return false;
  if (meta.path !== undefined) return true;
  for (const m of meta.methods.values()) if (m.httpMethods.length > 0) return true;
  return false;
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
];
function isProviderInstance(o: object): boolean {
  return PROVIDER_METHODS.some((m) => has(o, m));
}

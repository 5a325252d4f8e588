import type { DependencyContainer } from 'tsyringe';
import type { NameBindingDecorator } from '../decorators/binding.js';
import { compileValidator, validateOrThrow } from '../features/validation/index.js';
import { classMeta, findClassMeta, type MethodMeta } from './metadata.js';
import { parseMediaType, type MediaType } from './media-type.js';
import { splitBodyProviders, type BodyProviders, type EntityParam, type MapperEntry, type PathEntry, type RouteMethod } from './model.js';
import { compileParam } from './params.js';
import { DEFAULT_PRIORITY } from './priorities.js';
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
  ReaderInterceptor,
  TypeToken,
  WriterInterceptor,
} from './providers.js';
import { nameOf } from './request-filters.js';
import { ResourceInfo } from './resource-info.js';
import { compileTemplate, joinPaths } from './path-template.js';
import { Router } from './router.js';

/** Options that travel with one registration (explicit values beat decorators, jersey#2912). */
export interface RegistrationOptions {
  priority?: number;
  /** For exception mappers registered without `@MapsError`. */
  errorType?: Constructor;
  /** For context resolvers registered without `@ResolvesContext`. */
  contextType?: TypeToken;
}

export interface Registration extends RegistrationOptions {
  readonly target: Constructor | object;
}

/** A provider instance with everything needed to place it in chains. */
interface ProviderEntry {
  readonly instance: object;
  readonly ctor: Constructor;
  readonly priority: number;
  readonly bindings: readonly NameBindingDecorator[];
  readonly preMatching: boolean;
  /** 0 global, 1 name-bound, 2 dynamic: the tie-break after priority, then `order`. */
  readonly rank: number;
  readonly order: number;
  readonly errorType: Constructor | undefined;
  readonly contextType: TypeToken | undefined;
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
const has = (o: object, m: string): boolean => typeof (o as Record<string, unknown>)[m] === 'function';

/** Ascending priority; ties: global, name-bound, dynamic, then registration order. Never subtract (jersey#3099). */
function ascending(a: ProviderEntry, b: ProviderEntry): number {
  if (a.priority < b.priority) return -1;
  if (a.priority > b.priority) return 1;
  if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0;
}
/** The instances of `list` in `order` (sorts `list` in place: callers pass fresh arrays). */
function instances<T>(list: ProviderEntry[], order: (a: ProviderEntry, b: ProviderEntry) => number = ascending): T[] {
  return list.sort(order).map((p) => p.instance as T);
}
function descending(a: ProviderEntry, b: ProviderEntry): number {
  if (a.priority > b.priority) return -1;
  if (a.priority < b.priority) return 1;
  if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0;
}

/**
 * Builds the whole application model once: features applied, providers resolved and placed,
 * every resource method's chains merged and sorted, parameters compiled, routes frozen.
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

  const contextResolvers = providers.filter((p) => has(p.instance, 'getContext')).sort(ascending);
  const resolveContext = (contextType: TypeToken, type: TypeToken): unknown => {
    for (const p of contextResolvers) {
      if (p.contextType !== undefined && p.contextType !== contextType) continue;
      const v = (p.instance as ContextResolver).getContext(type);
      if (v !== undefined) return v;
    }
    return undefined;
  };

  const of = <T>(method: string, list: readonly ProviderEntry[] = providers): ProviderEntry[] =>
    list.filter((p) => has(p.instance, method)) as ProviderEntry[] & T[];
  const requestFilters = of('filterRequest');
  const preMatchFilters = requestFilters.filter((p) => p.preMatching).sort(ascending);
  const postFilters = requestFilters.filter((p) => !p.preMatching);
  const responseFilters = of('filterResponse');
  const readerInts = of('aroundReadFrom');
  const writerInts = of('aroundWriteTo');
  const global = (list: ProviderEntry[]): ProviderEntry[] => list.filter((p) => p.rank === 0);

  const converters = instances<ParamConverterProvider>(of('getConverter'));
  const defaults = splitBodyProviders(input.defaultProviders(contextResolvers.length === 0 ? undefined : resolveContext));
  const userReaders = instances<MessageBodyReader>(of('readFrom'));
  const userWriters = instances<MessageBodyWriter>(of('writeTo'));
  const body: BodyProviders = {
    readers: [...userReaders, ...defaults.readers],
    writers: [...userWriters, ...defaults.writers],
  };
  const mappers: MapperEntry[] = of('toResponse')
    .sort(ascending)
    .map((p) => {
      if (p.errorType === undefined)
        throw new Error(`ExceptionMapper ${p.ctor.name} needs @MapsError(ErrorType) or the errorType registration option`);
      return { errorType: p.errorType, priority: p.priority, mapper: p.instance as ExceptionMapper, name: nameOf(p.instance) };
    });

  // Resource methods: chains per method, after DynamicFeatures had their say.
  const routes: RouteMethod[] = [];
  const groups = new Map<string, { templates: Set<string>; routes: RouteMethod[] }>();
  for (const cls of resources) {
    const meta = classMeta(cls);
    const scope = meta.scope ?? input.defaultScope;
    const instance = scope === 'singleton' ? instantiate(cls) : undefined;
    for (const [methodName, mm] of meta.methods) {
      if (mm.httpMethods.length === 0) continue;
      const fn = (cls.prototype as Record<string, unknown>)[methodName];
      if (typeof fn !== 'function') continue;
      for (const httpMethod of mm.httpMethods) {
        const path = joinPaths(meta.path, mm.path);
        const bindings = new Map(meta.bindings);
        for (const [k, v] of mm.bindings) bindings.set(k, v);
        const info = new ResourceInfo(cls, methodName, httpMethod, path, bindings);
        const dynamic: ProviderEntry[] = [];
        const fctx: FeatureContext = {
          register(provider, options = {}) {
            dynamic.push(entry(provider, options, 2));
            return this;
          },
        };
        for (const f of dynamicFeatures) f.configure(info, fctx);
        const applies = (p: ProviderEntry): boolean => p.rank === 0 || p.bindings.every((b) => bindings.has(b));
        const pick = (list: ProviderEntry[], method: string): ProviderEntry[] => [...list.filter(applies), ...of(method, dynamic)];
        const route: RouteMethod = {
          info,
          httpMethod,
          fn: fn as RouteMethod['fn'],
          instance,
          resourceClass: cls,
          consumes: mediaTypes(mm.consumes ?? meta.consumes, info),
          produces: mediaTypes(mm.produces ?? meta.produces, info),
          requestFilters: instances<ContainerRequestFilter>(pick(postFilters, 'filterRequest')),
          readerInterceptors: instances<ReaderInterceptor>(pick(readerInts, 'aroundReadFrom')),
          responseFilters: instances<ContainerResponseFilter>(pick(responseFilters, 'filterResponse'), descending),
          writerInterceptors: instances<WriterInterceptor>(pick(writerInts, 'aroundWriteTo')),
          ...compileArgs(cls, methodName, mm, info, converters),
          negotiated: new Map(),
          writePlan: undefined,
        };
        routes.push(route);
        const key = compileTemplate(path).regex.source;
        let g = groups.get(key);
        if (g === undefined) groups.set(key, (g = { templates: new Set(), routes: [] }));
        g.templates.add(path);
        g.routes.push(route);
      }
    }
  }

  const router = new Router<PathEntry>();
  for (const g of groups.values()) {
    // Equivalent templates (`/users/{id}`, `/users/{uid}`) share one entry; adding each of them
    // lets the router bind every variable name a method of the group may ask for.
    const entry = pathEntry(g.routes);
    for (const template of g.templates) router.add(template, entry);
  }
  router.freeze();
  return {
    router,
    preMatchFilters: preMatchFilters.map((p) => p.instance as ContainerRequestFilter),
    globalResponseFilters: instances<ContainerResponseFilter>(global(responseFilters), descending),
    globalWriterInterceptors: instances<WriterInterceptor>(global(writerInts)),
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

function mediaTypes(list: readonly string[] | undefined, info: ResourceInfo): MediaType[] {
  if (list === undefined) return [];
  return list
    .flatMap((s) => s.split(','))
    .map((s) => {
      const mt = parseMediaType(s.trim());
      if (mt === undefined) throw new Error(`Invalid media type '${s}' on ${info.resourceClass.name}.${info.methodName}`);
      return mt;
    });
}

function pathEntry(routes: RouteMethod[]): PathEntry {
  const byMethod = new Map<string, RouteMethod[]>();
  for (const r of routes) {
    const list = byMethod.get(r.httpMethod) ?? [];
    list.push(r);
    byMethod.set(r.httpMethod, list);
  }
  const allow = new Set(byMethod.keys());
  if (allow.has('GET')) allow.add('HEAD');
  allow.add('OPTIONS');
  const allowList = [...allow].sort();
  return { methods: [...byMethod.keys()], lists: [...byMethod.values()], allow: allowList.join(', '), allowList };
}

function compileArgs(
  cls: Constructor,
  methodName: string,
  mm: MethodMeta,
  info: ResourceInfo,
  converters: readonly ParamConverterProvider[],
): Pick<RouteMethod, 'args' | 'entity'> & { form: boolean } {
  const designTypes = (Reflect.getMetadata('design:paramtypes', cls.prototype as object, methodName) as TypeToken[] | undefined) ?? [];
  const fn = (cls.prototype as Record<string, (...a: unknown[]) => unknown>)[methodName]!;
  const count = Math.max(designTypes.length, mm.params.length, fn.length);
  const args = [];
  let entity: EntityParam | undefined;
  let form = false;
  for (let i = 0; i < count; i++) {
    const p = mm.params[i] ?? {};
    if (p.source === undefined || p.source === 'entity') {
      if (entity !== undefined) throw new Error(`${cls.name}.${methodName} has more than one entity parameter (JAX-RS allows one)`);
      const type = p.type ?? designTypes[i] ?? Object;
      const validator = compileValidator(type);
      entity = {
        index: i,
        type,
        optional: p.optional === true,
        validate: validator === undefined ? undefined : (v: unknown) => validateOrThrow(validator, v),
      };
      args.push(() => undefined);
      continue;
    }
    if (p.source === 'form') form = true;
    args.push(compileParam(p, designTypes[i], info, converters));
  }
  if (form && entity !== undefined) throw new Error(`${cls.name}.${methodName} mixes @FormParam and an entity parameter`);
  if (form) {
    // @FormParam values come from the form body, read once as the method's (optional) entity.
    entity = { index: -1, type: URLSearchParams, optional: true, validate: undefined };
  }
  return { args, entity, form };
}

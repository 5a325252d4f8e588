import { compileValidator } from '../../features/validation/compile.js';
import { validateEntityOrThrow } from '../../features/validation/validation-error.js';
import { effectiveResource, type DeadlineSpec, type EffectiveResource, type MethodMeta } from '../model/metadata.js';
import { parseMediaType, type MediaType } from '../http/media-type.js';
import type { EntityParam, Locator, PathEntry, RouteMethod, SubResourceModel } from '../internal/model.js';
import { ModelProblemError, ModelProblems } from '../model/model-problems.js';
import type { NameBindingDecorator } from '../context/resource-info.js';
import { compileParam } from './compile-params.js';
import { compileBeanParam, type BeanScope } from './bean-params.js';
import { compileArgumentsValidator, type ArgumentShape } from '../../features/validation/arguments.js';
import { compilePath, compileTemplate, joinPaths } from '../routing/path-template.js';
import { descending, instances, withMethod, type ProviderEntry, type RegistrationOptions } from '../model/provider-entry.js';
import type {
  Constructor,
  ContainerRequestFilter,
  ContainerResponseFilter,
  DynamicFeature,
  FeatureConfiguration,
  FeatureContext,
  ParamConverterProvider,
  ReaderInterceptor,
  TypeToken,
  WriterInterceptor,
} from '../context/contracts.js';
import { ResourceInfo } from '../context/resource-info.js';
import { Router } from '../routing/router.js';
import { requiredBindingProviders } from '../internal/extensions.js';

/** What {@link buildRoutes} needs from the provider half of the build (build.ts). */
export interface RouteInput {
  readonly resources: readonly Constructor[];
  readonly defaultScope: 'singleton' | 'request';
  /** Resolves a class from the container (undefined, with the problem recorded, when it cannot). */
  readonly instantiate: (target: Constructor) => object | undefined;
  /** Records PIPELINE_DI_FAILED when the container could not build `target` per request (a dependency it cannot find). */
  readonly checkResolvable?: (target: Constructor) => void;
  /** Where start-up problems are collected. */
  readonly problems: ModelProblems;
  /** The application's deadline for methods without `@Deadline`. */
  readonly deadline: DeadlineSpec | undefined;
  /** Every provider's declared binding decorators and whether they bind it (not made global), for the binding warnings. */
  readonly providerBindings: ReadonlyArray<{
    readonly name: string;
    readonly bound: boolean;
    readonly declared: readonly NameBindingDecorator[];
  }>;
  readonly dynamicFeatures: readonly DynamicFeature[];
  /** What DynamicFeatures are told of the application. */
  readonly configuration: FeatureConfiguration;
  /** The entry of a provider a DynamicFeature registers for one method (rank 2). */
  readonly dynamicEntry: (provider: Constructor | object, options: RegistrationOptions) => ProviderEntry;
  /** Every registered post-matching request filter, reader/writer interceptor and response filter, unsorted. */
  readonly postFilters: readonly ProviderEntry[];
  readonly readerInterceptors: readonly ProviderEntry[];
  readonly responseFilters: readonly ProviderEntry[];
  readonly writerInterceptors: readonly ProviderEntry[];
  readonly converters: readonly ParamConverterProvider[];
  /**
   * Start-up checks of each resource method that need the registered body providers (build.ts),
   * run for root and sub-resource methods alike, once per method (not per HTTP method).
   */
  readonly checkRoute?: (route: RouteMethod, facts: RouteFacts, problems: ModelProblems) => void;
}

/** What {@link RouteInput.checkRoute} knows of a method beyond its {@link RouteMethod}. */
export interface RouteFacts {
  /** The declared type of each `@Context()` parameter (undefined when unknown), in order. */
  readonly contextTypes: readonly (TypeToken | undefined)[];
  /** `design:returntype`: undefined for `void` or without metadata, `Object` or `Promise` when TypeScript cannot say more. */
  readonly returnType: unknown;
}

/**
 * One {@link RouteMethod} per resource method and HTTP method, after DynamicFeatures had their
 * say: chains merged (global + bound + dynamic) and sorted, parameters compiled; then the frozen
 * router, where equivalent templates share one {@link PathEntry}. Sub-resource locators get an
 * open template; the sub-resources they declare are built here too, so their problems are
 * start-up problems; those only known when a locator returns them are built on first use.
 */
export function buildRoutes(input: RouteInput): { router: Router<PathEntry>; routes: RouteMethod[] } {
  const routes: RouteMethod[] = [];
  const groups: Groups = new Map();
  for (const cls of input.resources) {
    const meta = effectiveResource(cls);
    if (meta === undefined) continue;
    const scope = meta.scope ?? input.defaultScope;
    const instance = scope === 'singleton' ? input.instantiate(cls) : undefined;
    if (scope === 'singleton' && instance === undefined) continue; // recorded: PIPELINE_DI_FAILED
    if (scope === 'request') input.checkResolvable?.(cls);
    addClass(
      input,
      { cls, meta, instance, located: false, routerBase: meta.path, infoBase: meta.path, outer: undefined, seen: [cls] },
      routes,
      groups,
    );
  }

  checkAmbiguity(routes, input.problems);
  checkLocators(groups, input.problems);
  checkBindings(routes, input);
  return { router: toRouter(groups), routes };
}

/** Routes and locators grouped by template regex (equivalent templates share a router entry). */
type Groups = Map<string, { templates: Set<string>; routes: RouteMethod[]; locators: Locator[]; open: boolean }>;

/** One class, as a root resource or as a sub-resource. */
interface ClassScope {
  readonly cls: Constructor;
  readonly meta: EffectiveResource;
  readonly instance: object | undefined;
  /** A sub-resource: its methods run on the object the locator returned. */
  readonly located: boolean;
  /** Prefix of the router's templates: the class's `@Path`, or nothing for a sub-resource (§3.4.1). */
  readonly routerBase: string | undefined;
  /** Prefix of `ResourceInfo.path`: the class's `@Path`, or the locator's full template. */
  readonly infoBase: string | undefined;
  /** The locator's bindings, for a sub-resource: its filters apply too (jersey#2686). */
  readonly outer: ReadonlyMap<NameBindingDecorator, unknown[]> | undefined;
  /** Classes on the way here, so a recursive sub-resource is built lazily, not forever. */
  readonly seen: readonly Function[];
}

/** Locators nest at most this deep below a root resource (a request further down is a 404). */
export const MAX_LOCATOR_DEPTH = 16;

function addClass(input: RouteInput, scope: ClassScope, routes: RouteMethod[], groups: Groups): void {
  const { cls, meta, instance } = scope;
  for (const [methodName, { meta: mm }] of meta.methods) {
    const isLocator = mm.httpMethods.length === 0 && mm.path !== undefined;
    if (mm.httpMethods.length === 0 && !isLocator) continue;
    const fn = (cls.prototype as Record<string, unknown>)[methodName];
    if (typeof fn !== 'function') continue;
    const path = joinPaths(scope.infoBase, mm.path);
    const template = joinPaths(scope.routerBase, mm.path);
    if (!validTemplate(input.problems, cls, methodName, path, isLocator)) continue;
    const bindings = new Map(scope.outer);
    for (const [k, v] of meta.bindings) bindings.set(k, v);
    for (const [k, v] of mm.bindings) bindings.set(k, v);
    if (isLocator) {
      const locator = makeLocator(input, scope, methodName, mm, fn as Locator['fn'], path, bindings);
      group(groups, template, true).locators.push(locator);
      continue;
    }
    for (const httpMethod of mm.httpMethods) {
      const info = new ResourceInfo(cls, methodName, httpMethod, path, bindings);
      const dynamic: ProviderEntry[] = [];
      const fctx: FeatureContext = {
        register(provider, options = {}) {
          dynamic.push(input.dynamicEntry(provider, options));
          return this;
        },
        configuration: input.configuration,
      };
      for (const f of input.dynamicFeatures) f.configure(info, fctx);
      const applies = (p: ProviderEntry): boolean => p.rank === 0 || p.bindings.every((b) => bindings.has(b));
      const pick = (list: readonly ProviderEntry[], method: string): ProviderEntry[] => [
        ...list.filter(applies),
        ...withMethod(dynamic, method),
      ];
      const compiled = compileArgs(cls, methodName, mm, info, input.converters, input.problems, path);
      const route: RouteMethod = {
        info,
        httpMethod,
        fn: fn as RouteMethod['fn'],
        instance,
        located: scope.located,
        resourceClass: cls,
        consumes: mediaTypes(mm.consumes ?? meta.consumes, info),
        produces: mediaTypes(mm.produces ?? meta.produces, info),
        requestFilters: instances<ContainerRequestFilter>(pick(input.postFilters, 'filterRequest')),
        readerInterceptors: instances<ReaderInterceptor>(pick(input.readerInterceptors, 'aroundReadFrom')),
        responseFilters: instances<ContainerResponseFilter>(pick(input.responseFilters, 'filterResponse'), descending),
        writerInterceptors: instances<WriterInterceptor>(pick(input.writerInterceptors, 'aroundWriteTo')),
        args: compiled.args,
        entity: compiled.entity,
        form: compiled.form,
        validate: compiled.validate,
        negotiated: new Map(),
        writePlan: undefined,
        readPlan: undefined,
        consumed: undefined,
        deadline: mm.deadline ?? meta.deadline ?? input.deadline,
        variesByAccept: false,
        servedWhileClosing: mm.servedWhileClosing === true,
      };
      if (input.checkRoute !== undefined && httpMethod === mm.httpMethods[0]) {
        const returnType = Reflect.getMetadata('design:returntype', cls.prototype as object, methodName) as unknown;
        input.checkRoute(route, { contextTypes: compiled.contextTypes, returnType }, input.problems);
      }
      routes.push(route);
      group(groups, template, false).routes.push(route);
    }
  }
}

/**
 * Compiles the method's full template once, before anything else uses it: an invalid one (an
 * unbalanced brace, a regex that does not compile, a repeated variable) is a problem naming the
 * class and the method (`PIPELINE_INVALID_PATH`), reported with the others, instead of the first
 * one aborting `build()` with only the template. The method is then left out.
 */
function validTemplate(problems: ModelProblems, cls: Function, methodName: string, path: string, open: boolean): boolean {
  try {
    compilePath(path, open);
    return true;
  } catch (e) {
    problems.error(
      'PIPELINE_INVALID_PATH',
      `${cls.name}.${methodName}: ${(e as Error).message}; fix the @Path of the class or of the method (a variable is {name} or {name: regex})`,
    );
    return false;
  }
}

function group(groups: Groups, template: string, open: boolean): Groups extends Map<string, infer G> ? G : never {
  const key = compilePath(template, open).tpl.regex.source;
  let g = groups.get(key);
  if (g === undefined) groups.set(key, (g = { templates: new Set(), routes: [], locators: [], open }));
  g.templates.add(template);
  return g;
}

function toRouter(groups: Groups): Router<PathEntry> {
  const router = new Router<PathEntry>();
  for (const g of groups.values()) {
    // Equivalent templates (`/users/{id}`, `/users/{uid}`) share one entry; adding each of them
    // lets the router bind every variable name a method of the group may ask for.
    const entry = g.open ? locatorEntry(g.locators[0]!) : pathEntry(g.routes);
    for (const template of g.templates) router.add(template, entry, g.open);
  }
  router.freeze();
  return router;
}

/** Two locators on equivalent templates: the second could never be reached. */
function checkLocators(groups: Groups, problems: ModelProblems): void {
  for (const g of groups.values()) {
    if (g.locators.length < 2) continue;
    const [a, b] = g.locators as [Locator, Locator];
    problems.error(
      'PIPELINE_AMBIGUOUS_ROUTE',
      `${a.info.resourceClass.name}.${a.info.methodName} and ${b.info.resourceClass.name}.${b.info.methodName} are sub-resource locators ` +
        `on the same path ${b.info.path}: only one could ever be reached; change one path`,
    );
  }
}

function locatorEntry(locator: Locator): PathEntry {
  return { methods: [], lists: [], allow: '', allowList: [], locator };
}

function makeLocator(
  input: RouteInput,
  scope: ClassScope,
  methodName: string,
  mm: MethodMeta,
  fn: Locator['fn'],
  path: string,
  bindings: Map<NameBindingDecorator, unknown[]>,
): Locator {
  const { cls } = scope;
  const info = new ResourceInfo(cls, methodName, '', path, bindings);
  const compiled = compileArgs(cls, methodName, mm, info, input.converters, input.problems, path);
  if (compiled.entity !== undefined) {
    input.problems.error(
      'PIPELINE_LOCATOR_ENTITY',
      `${cls.name}.${methodName} is a sub-resource locator (@Path without an HTTP method) but takes the request entity: ` +
        `a locator only chooses the object that handles the request; read the entity in the sub-resource's method`,
    );
  }
  const models = new Map<Function, SubResourceModel>();
  const subModel = (sub: Function, problems: ModelProblems, seen: readonly Function[]): SubResourceModel => {
    const meta = effectiveResource(sub as Constructor);
    if (meta === undefined || ![...meta.methods.values()].some((m) => m.meta.httpMethods.length > 0 || m.meta.path !== undefined)) {
      problems.error(
        'PIPELINE_NOT_A_SUB_RESOURCE',
        `${cls.name}.${methodName} is a sub-resource locator, but ${sub.name || 'the class it returns'} has no resource method and no locator: ` +
          `decorate its methods with @GET()/@POST()/... (and @Path for deeper paths), or return another object`,
      );
      return { router: toRouter(new Map()) };
    }
    const routes: RouteMethod[] = [];
    const groups: Groups = new Map();
    const subScope: ClassScope = {
      cls: sub as Constructor,
      meta,
      instance: undefined,
      located: true,
      routerBase: undefined,
      infoBase: path,
      outer: bindings,
      seen: [...seen, sub],
    };
    addClass({ ...input, problems }, subScope, routes, groups);
    checkAmbiguity(routes, problems);
    checkLocators(groups, problems);
    return { router: toRouter(groups) };
  };
  const locator: Locator = {
    info,
    fn,
    args: compiled.args,
    validate: compiled.validate,
    instance: scope.instance,
    located: scope.located,
    resourceClass: cls,
    models,
    model: (sub) => {
      const problems = new ModelProblems();
      const model = subModel(sub, problems, []);
      const errors = problems.list.filter((p) => p.severity === 'error');
      if (errors.length > 0) {
        const lines = errors.map((p) => `  [${p.code}] ${p.message}`).join('\n');
        throw new Error(`${cls.name}.${methodName} returned a ${sub.name || 'object'} that cannot serve as a sub-resource:\n${lines}`);
      }
      return model;
    },
  };
  // The class the locator declares it returns is built now: its problems are start-up problems.
  const declared = Reflect.getMetadata('design:returntype', cls.prototype as object, methodName) as unknown;
  if (PRIMITIVE_TYPES.has(declared)) {
    // A string, number... can never serve a request: every request through the locator was a 500.
    input.problems.error(
      'PIPELINE_NOT_A_SUB_RESOURCE',
      `${cls.name}.${methodName} is a sub-resource locator (@Path without an HTTP method) but returns ${(declared as Function).name.toLowerCase()}: ` +
        `a locator returns the object (or class) whose methods handle the request; add @GET() (or another HTTP method) if it answers itself`,
    );
  } else if (
    typeof declared === 'function' &&
    Function.prototype.toString.call(declared).startsWith('class') && // a class of the application's, not Object or Promise
    declared !== cls &&
    !scope.seen.includes(declared) &&
    scope.seen.length < MAX_LOCATOR_DEPTH
  ) {
    models.set(declared, subModel(declared, input.problems, scope.seen));
  }
  return locator;
}

/** `design:returntype` of a locator declared to return a primitive. */
const PRIMITIVE_TYPES: ReadonlySet<unknown> = new Set([String, Number, Boolean, BigInt, Symbol]);

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

/** Several `@Produces` types, or a wildcard one (`text/*`): Accept decides the response's type. */
function negotiatesType(produces: readonly MediaType[]): boolean {
  return produces.length > 1 || (produces.length === 1 && (produces[0]!.type === '*' || produces[0]!.subtype === '*'));
}

function pathEntry(routes: RouteMethod[]): PathEntry {
  const byMethod = new Map<string, RouteMethod[]>();
  for (const r of routes) {
    const list = byMethod.get(r.httpMethod) ?? [];
    list.push(r);
    byMethod.set(r.httpMethod, list);
  }
  for (const list of byMethod.values()) {
    // Accept picks among these methods only if their @Produces differ (not when @Consumes alone tells them apart).
    const key = (r: RouteMethod): string => r.produces.map((m) => m.essence).join(',');
    const chosenByAccept = list.some((r) => key(r) !== key(list[0]!));
    for (const r of list) r.variesByAccept = chosenByAccept || negotiatesType(r.produces);
  }
  const allow = new Set(byMethod.keys());
  if (allow.has('GET')) allow.add('HEAD');
  allow.add('OPTIONS');
  const allowList = [...allow].sort();
  return { methods: [...byMethod.keys()], lists: [...byMethod.values()], allow: allowList.join(', '), allowList, locator: undefined };
}

function compileArgs(
  cls: Constructor,
  methodName: string,
  mm: MethodMeta,
  info: ResourceInfo,
  converters: readonly ParamConverterProvider[],
  problems: ModelProblems,
  path: string,
): Pick<RouteMethod, 'args' | 'entity' | 'validate'> & { form: boolean; contextTypes: (TypeToken | undefined)[] } {
  const declared = Reflect.getMetadata('design:paramtypes', cls.prototype as object, methodName) as TypeToken[] | undefined;
  const designTypes = declared ?? [];
  const fn = (cls.prototype as Record<string, (...a: unknown[]) => unknown>)[methodName]!;
  const where = `${cls.name}.${methodName}`;
  // Reported once per method (not per HTTP method it answers); locators have none.
  const report = mm.httpMethods.length === 0 || info.httpMethod === mm.httpMethods[0];
  if (declared === undefined && (fn.length > 0 || mm.params.length > 0) && report) {
    problems.error(
      'PIPELINE_NO_DESIGN_TYPES',
      `${where} has parameters but no decorator metadata (design:paramtypes), so they would arrive unconverted and entities unvalidated: ` +
        `compile with "experimentalDecorators": true and "emitDecoratorMetadata": true (tsc, or vitest/swc with that tsconfig); tsx and esbuild do not emit it`,
    );
  }
  const variables = compileTemplate(path).names;
  for (const p of mm.params) {
    if (p?.source === 'path' && p.name !== undefined && !variables.includes(p.name) && report) {
      problems.error(
        'PIPELINE_UNKNOWN_PATH_PARAM',
        `${where}: @PathParam('${p.name}') names no variable of its path '${path}'${variables.length > 0 ? ` (variables: ${variables.join(', ')})` : ''}: fix the name or the template`,
      );
    }
  }
  const count = Math.max(designTypes.length, mm.params.length, fn.length);
  const args = [];
  let entity: EntityParam | undefined;
  let form = false;
  const contextTypes: (TypeToken | undefined)[] = [];
  // What the VALIDATION slot checks: constraints on parameters, @BeanParam fields, the entity.
  const shapes: ArgumentShape[] = [];
  const beans: BeanScope = {
    info,
    providers: converters,
    problems,
    variables,
    path,
    where,
    report,
  };
  for (let i = 0; i < count; i++) {
    const p = mm.params[i] ?? {};
    if (p.source === 'bean') {
      const bean = compileBeanParam(p.type ?? designTypes[i], beans, `${where} (argument ${i})`);
      if (bean.plan?.form === true) form = true;
      shapes.push({ index: i, source: 'bean', name: undefined, bean: bean.plan });
      args.push(bean.resolve);
      continue;
    }
    if (p.source === undefined || p.source === 'entity') {
      if (entity !== undefined) throw new Error(`${cls.name}.${methodName} has more than one entity parameter (JAX-RS allows one)`);
      if (info.httpMethod === 'GET' || info.httpMethod === 'HEAD') {
        problems.warn(
          'PIPELINE_ENTITY_ON_GET',
          `${where} (${info.httpMethod}) has an entity parameter (argument ${i}): GET requests have no body for most clients and proxies; decorate the argument (@QueryParam, @Context...) or use POST`,
        );
      }
      const type = p.type ?? designTypes[i] ?? Object;
      const validator = compileValidator(type);
      entity = {
        index: i,
        type,
        optional: p.optional === true,
        validate: validator === undefined ? undefined : (v: unknown) => validateEntityOrThrow(validator, v),
      };
      shapes.push({ index: i, source: 'entity', name: undefined, entity: validator });
      args.push(() => undefined);
      continue;
    }
    if (p.source === 'form') form = true;
    shapes.push({ index: i, source: p.source, name: p.name });
    if (p.source === 'context') contextTypes.push(p.type ?? designTypes[i]);
    try {
      args.push(compileParam(p, designTypes[i], info, converters, where, `argument ${i}`));
    } catch (e) {
      if (!(e instanceof ModelProblemError)) throw e;
      // Without any metadata, PIPELINE_NO_DESIGN_TYPES already says why the type is unknown.
      if (report && (declared !== undefined || p.type !== undefined)) problems.error(e.code, e.message);
      args.push(() => undefined); // never runs: build() fails
    }
  }
  // With constraints on parameters, one check reports theirs and the entity's together.
  const validate = compileArgumentsValidator(cls, methodName, shapes);
  if (validate !== undefined && entity !== undefined) entity = { ...entity, validate: undefined };
  if (form && entity !== undefined) throw new Error(`${cls.name}.${methodName} mixes @FormParam and an entity parameter`);
  if (form) {
    // @FormParam values come from the form body, read once as the method's (optional) entity.
    entity = { index: -1, type: URLSearchParams, optional: true, validate: undefined };
  }
  return { args, entity, form, validate, contextTypes };
}

/** Media types as compared for ambiguity: none declared means any. */
const typesOf = (list: readonly MediaType[]): Set<string> => new Set(list.length === 0 ? ['*/*'] : list.map((m) => m.essence));
const overlap = (a: Set<string>, b: Set<string>): boolean => [...a].some((x) => b.has(x));

/**
 * Two methods answering the same HTTP method on equivalent templates with the same consumable and
 * producible media types cannot be told apart (Jakarta REST 3.1 §3.7.2): today the first would
 * win silently. Templates are compared by their regex, so `{id}` and `{uid}` are the same path.
 */
function checkAmbiguity(routes: readonly RouteMethod[], problems: ModelProblems): void {
  const seen = new Map<string, RouteMethod[]>();
  for (const r of routes) {
    const key = `${r.httpMethod} ${compileTemplate(r.info.path).regex.source}`;
    const same = seen.get(key) ?? [];
    for (const other of same) {
      if (overlap(typesOf(r.consumes), typesOf(other.consumes)) && overlap(typesOf(r.produces), typesOf(other.produces))) {
        problems.error(
          'PIPELINE_AMBIGUOUS_ROUTE',
          `${other.info.resourceClass.name}.${other.info.methodName} and ${r.info.resourceClass.name}.${r.info.methodName} both answer ` +
            `${r.httpMethod} ${r.info.path} with the same media types: change one path, or tell them apart with @Consumes/@Produces`,
        );
      }
    }
    same.push(r);
    seen.set(key, same);
  }
}

/** Warnings for name bindings that can never take effect (a typo, a forgotten decorator). */
function checkBindings(routes: readonly RouteMethod[], input: RouteInput): void {
  const onResources = new Set<NameBindingDecorator>();
  for (const r of routes) for (const b of r.info.bindings.keys()) onResources.add(b as NameBindingDecorator);
  const byProviders = new Set<NameBindingDecorator>();
  for (const p of input.providerBindings) {
    for (const b of p.declared) {
      byProviders.add(b);
      if (p.bound && !onResources.has(b)) {
        input.problems.warn(
          'PIPELINE_BINDING_UNUSED',
          `${p.name} is bound to @${bindingName(b)}, which no resource class or method carries: it never runs; add @${bindingName(b)}() where it should apply, or pass it in the application's bindings to make it global`,
        );
      }
    }
  }
  checkRequiredBindings(routes, byProviders, input);
  // A DynamicFeature may act on any binding (RolesAllowed does): only without one is this sure.
  if (input.dynamicFeatures.length > 0) return;
  const required = new Set(requiredBindingProviders().map((r) => r.binding));
  for (const b of onResources) {
    if (!byProviders.has(b) && !required.has(b)) {
      input.problems.warn(
        'PIPELINE_BINDING_WITHOUT_PROVIDER',
        `@${bindingName(b)} is on a resource but no registered provider is bound to it: register the provider, or remove the decorator`,
      );
    }
  }
}

/**
 * A binding only a known provider acts on (extensions.ts `requireBindingProvider`: `@RolesAllowed`,
 * `@DenyAll`) on a method while neither that provider nor one bound to the binding is registered:
 * the method would be served to everyone (fail open), so it is an error, not the warning above.
 * One problem per binding, naming up to three of its methods.
 */
function checkRequiredBindings(routes: readonly RouteMethod[], byProviders: ReadonlySet<NameBindingDecorator>, input: RouteInput): void {
  for (const req of requiredBindingProviders()) {
    const binding = req.binding as NameBindingDecorator;
    if (byProviders.has(binding) || input.dynamicFeatures.some((f) => f instanceof req.actedOnBy)) continue;
    const where = [
      ...new Set(routes.filter((r) => r.info.bindings.has(binding)).map((r) => `${r.resourceClass.name}.${r.info.methodName}`)),
    ];
    if (where.length === 0) continue;
    const shown = where.length > 3 ? `${where.slice(0, 3).join(', ')} and ${where.length - 3} more` : where.join(', ');
    const these = where.length > 1 ? 'these methods' : 'the method';
    if (req.severity === 'warning') {
      input.problems.warn(
        'PIPELINE_BINDING_WITHOUT_PROVIDER',
        `@${bindingName(binding)} is on ${shown}, but no registered provider acts on it (${req.actedOnBy.name}): it has no effect on ${these}; ${req.fix}`,
      );
      continue;
    }
    input.problems.error(
      'PIPELINE_FEATURE_NOT_REGISTERED',
      `@${bindingName(binding)} is on ${shown}, but no registered provider acts on it (${req.actedOnBy.name}), so every caller would reach ` +
        `${these} unchecked: ${req.fix}`,
    );
  }
}

const bindingName = (b: NameBindingDecorator): string => (b as { bindingName?: string }).bindingName ?? (b as Function).name ?? 'binding';

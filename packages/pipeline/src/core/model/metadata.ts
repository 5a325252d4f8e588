import type { NameBindingDecorator } from '../context/resource-info.js';
import type { Constructor, TypeToken } from '../context/contracts.js';

/** Where a resource-method parameter comes from (`bean`: a `@BeanParam` object built from its fields). */
export type ParamSource = 'path' | 'query' | 'header' | 'cookie' | 'form' | 'context' | 'entity' | 'bean';

/** Everything the decorators record about one parameter; merged as decorators apply. */
export interface ParamMeta {
  source?: ParamSource;
  name?: string;
  defaultValue?: string;
  /** Explicit type (overrides `design:paramtypes`), e.g. `Number` or a class. */
  type?: TypeToken;
  /** Element type for array parameters (repeated query values). */
  elementType?: TypeToken;
  /** Entity only: may the body be absent? (default: required) */
  optional?: boolean;
}

export interface MethodMeta {
  httpMethods: string[];
  path?: string;
  produces?: string[];
  consumes?: string[];
  bindings: Map<NameBindingDecorator, unknown[]>;
  params: ParamMeta[];
  /** `@Deadline` on the method. */
  deadline?: DeadlineSpec;
  /** `@ServedWhileClosing()` on the method. */
  servedWhileClosing?: boolean;
}

/** What `@Deadline` records: the time the method's result may take, and what to answer past it. */
export interface DeadlineSpec {
  readonly ms: number;
  readonly onTimeout?: (
    request: import('../context/request-context.js').ContainerRequestContext,
  ) => import('../http/response.js').Response | undefined;
}

export interface ClassMeta {
  path?: string;
  produces?: string[];
  consumes?: string[];
  bindings: Map<NameBindingDecorator, unknown[]>;
  methods: Map<string, MethodMeta>;
  isProvider: boolean;
  priority?: number;
  preMatching: boolean;
  errorType?: Constructor;
  contextType?: TypeToken;
  scope?: 'singleton' | 'request';
  /** `@Deadline` on the class: for every method without its own. */
  deadline?: DeadlineSpec;
}

// One registry, keyed by class: decorators write here once at class definition; the application
// reads it once at build time, so nothing on the request path touches metadata.
const registry = new WeakMap<object, ClassMeta>();
const discovered: Constructor[] = [];

/** The metadata of a class, created on first use. */
export function classMeta(target: object): ClassMeta {
  let meta = registry.get(target);
  if (meta === undefined) {
    meta = { bindings: new Map(), methods: new Map(), isProvider: false, preMatching: false };
    registry.set(target, meta);
  }
  return meta;
}

/** The metadata of a class if any decorator touched it. */
export function findClassMeta(target: object): ClassMeta | undefined {
  return registry.get(target);
}

/** The metadata of one method of a class. */
export function methodMeta(ctor: object, name: string): MethodMeta {
  const meta = classMeta(ctor);
  let m = meta.methods.get(name);
  if (m === undefined) {
    m = { httpMethods: [], bindings: new Map(), params: [] };
    meta.methods.set(name, m);
  }
  return m;
}

/** The metadata of one parameter (merged across decorators on that parameter). */
export function paramMeta(ctor: object, name: string, index: number): ParamMeta {
  const m = methodMeta(ctor, name);
  let p = m.params[index];
  if (p === undefined) {
    p = {};
    m.params[index] = p;
  }
  return p;
}

/** Classes that carried `@Provider()`, in definition order. */
export function discoveredProviders(): readonly Constructor[] {
  return discovered;
}

export function markDiscovered(ctor: Constructor): void {
  if (!discovered.includes(ctor)) discovered.push(ctor);
}

/**
 * A resource class as the pipeline sees it, its superclasses included (Jakarta REST 3.1 §3.6,
 * annotation inheritance): class-level `@Path`, `@Produces`, `@Consumes`, scope and `@Deadline`
 * come from the nearest class that declares them; name bindings of every class in the chain
 * apply (a subclass's value for the same binding wins). Each method's decorators come from the
 * nearest class whose declaration of that method carries any: an override with decorators of its
 * own replaces the inherited ones wholesale, an override without any keeps them (its body runs).
 */
export interface EffectiveResource {
  readonly path: string | undefined;
  readonly produces: string[] | undefined;
  readonly consumes: string[] | undefined;
  readonly bindings: Map<NameBindingDecorator, unknown[]>;
  readonly scope: 'singleton' | 'request' | undefined;
  readonly deadline: DeadlineSpec | undefined;
  /** Method name → its decorators and the class that declared them. */
  readonly methods: Map<string, { readonly meta: MethodMeta; readonly declaredBy: Constructor }>;
}

/** The class and its decorated superclasses, nearest first (abstract classes included). */
function metaChain(cls: Constructor): Array<[Constructor, ClassMeta]> {
  const chain: Array<[Constructor, ClassMeta]> = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const meta = registry.get(c);
    if (meta !== undefined) chain.push([c as Constructor, meta]);
  }
  return chain;
}

/** {@link EffectiveResource} of a class; undefined when no class of its chain has decorators. */
export function effectiveResource(cls: Constructor): EffectiveResource | undefined {
  const chain = metaChain(cls);
  if (chain.length === 0) return undefined;
  const nearest = <K extends keyof ClassMeta>(key: K): ClassMeta[K] | undefined => {
    for (const [, m] of chain) if (m[key] !== undefined) return m[key];
    return undefined;
  };
  const bindings = new Map<NameBindingDecorator, unknown[]>();
  for (let i = chain.length - 1; i >= 0; i--) for (const [k, v] of chain[i]![1].bindings) bindings.set(k, v);
  const methods = new Map<string, { meta: MethodMeta; declaredBy: Constructor }>();
  for (const [c, m] of chain) for (const [name, mm] of m.methods) if (!methods.has(name)) methods.set(name, { meta: mm, declaredBy: c });
  return {
    path: nearest('path'),
    produces: nearest('produces'),
    consumes: nearest('consumes'),
    bindings,
    scope: nearest('scope'),
    deadline: nearest('deadline'),
    methods,
  };
}

import { beanFields } from '../model/bean-meta.js';
import type { ParamMeta, ParamSource } from '../model/metadata.js';
import { ModelProblemError, type ModelProblems } from '../model/model-problems.js';
import type { Constructor, ParamConverterProvider, TypeToken } from '../context/contracts.js';
import type { ResourceInfo } from '../context/resource-info.js';
import type { ArgResolver } from '../internal/model.js';
import { compileParam } from './compile-params.js';
import { collectConversion, type ParamConversionError } from '../internal/param-conversion.js';

/** Deepest nesting of `@BeanParam` fields inside `@BeanParam` classes. */
export const MAX_BEAN_DEPTH = 8;

/** One set field of a compiled `@BeanParam` class. */
export interface BeanFieldPlan {
  readonly key: string;
  readonly source: ParamSource;
  /** The parameter name (`page` of `@QueryParam('page')`); undefined for `@Context` and nested beans. */
  readonly name: string | undefined;
  /** A nested `@BeanParam` field's class. */
  readonly bean: BeanPlan | undefined;
}

/** A `@BeanParam` class compiled for one resource method. */
export interface BeanPlan {
  readonly cls: Constructor;
  readonly fields: readonly BeanFieldPlan[];
  /** A field (or a nested bean's) is a `@FormParam`: the form body must be read first. */
  readonly form: boolean;
}

/** What compiling the beans of one resource method needs. */
export interface BeanScope {
  readonly info: ResourceInfo;
  readonly providers: readonly ParamConverterProvider[];
  readonly problems: ModelProblems;
  /** The variables of the method's path template, for `@PathParam` fields. */
  readonly variables: readonly string[];
  readonly path: string;
  /** `Class.method`, for messages. */
  readonly where: string;
  /** Record problems (false for the second HTTP method of one method: reported once). */
  readonly report: boolean;
}

/** Classes that cannot hold fields: a parameter declared with one is not a bean. */
const NOT_A_BEAN = new Set<unknown>([Object, String, Number, Boolean, BigInt, Symbol, Function, Array, Date, Map, Set, Promise]);

/**
 * Compiles a `@BeanParam` argument (Jakarta REST 3.1 §3.2) into a resolver that builds a fresh
 * instance per request (`new Type()`) and sets each decorated field with the converter a method
 * parameter of that source and type would get. Misconfigurations are recorded as model problems
 * (the resolver then returns undefined; `build()` fails anyway).
 */
export function compileBeanParam(
  type: TypeToken | undefined,
  scope: BeanScope,
  declaredAt: string,
): { resolve: ArgResolver; plan: BeanPlan | undefined } {
  const plan = compileBean(type, scope, declaredAt, []);
  return plan === undefined ? { resolve: () => undefined, plan: undefined } : { resolve: plan.resolve, plan: plan.plan };
}

function compileBean(
  type: TypeToken | undefined,
  scope: BeanScope,
  declaredAt: string,
  stack: readonly Function[],
): { resolve: ArgResolver; plan: BeanPlan } | undefined {
  const problem = (message: string): undefined => {
    if (scope.report) scope.problems.error('PIPELINE_BEAN_PARAM_INVALID', message);
    return undefined;
  };
  if (typeof type !== 'function' || NOT_A_BEAN.has(type)) {
    const what = typeof type === 'function' ? `is declared as ${type.name}` : 'has no known type';
    return problem(`${declaredAt} ${what}, not a @BeanParam class: declare it with the class, or pass @BeanParam(Type)`);
  }
  const cls = type as Constructor;
  if (stack.includes(cls)) {
    return problem(
      `${declaredAt} nests ${cls.name} inside itself (${[...stack, cls].map((c) => c.name).join(' → ')}): a @BeanParam cannot contain itself`,
    );
  }
  if (stack.length >= MAX_BEAN_DEPTH) {
    return problem(`${declaredAt} nests @BeanParam classes more than ${MAX_BEAN_DEPTH} levels deep: flatten ${cls.name}`);
  }
  if (cls.length > 0) {
    return problem(
      `${cls.name}, the @BeanParam of ${declaredAt}, has a constructor taking ${cls.length} parameter(s), but a @BeanParam class is built with new ${cls.name}(): remove them or give them defaults`,
    );
  }
  const fields = beanFields(cls);
  if (fields.length === 0) {
    return problem(
      `${cls.name}, the @BeanParam of ${declaredAt}, has no field with @QueryParam, @PathParam, @HeaderParam, @CookieParam, @FormParam, @Context or @BeanParam: decorate the fields to set`,
    );
  }
  const setters: Array<{ key: string; resolve: ArgResolver }> = [];
  const plans: BeanFieldPlan[] = [];
  let form = false;
  let ok = true;
  for (const { key, meta, owner } of fields) {
    const at = `${cls.name}.${key} (@BeanParam of ${scope.where})`;
    const resolved = compileField(meta, owner, key, at, scope, [...stack, cls]);
    if (resolved === undefined) {
      ok = false;
      continue;
    }
    setters.push({ key, resolve: resolved.resolve });
    plans.push({ key, source: meta.source!, name: meta.name, bean: resolved.bean });
    if (meta.source === 'form' || resolved.bean?.form === true) form = true;
  }
  if (!ok) return undefined;
  return { resolve: instantiate(cls, setters), plan: { cls, fields: plans, form } };
}

function compileField(
  meta: ParamMeta,
  owner: Function,
  key: string,
  at: string,
  scope: BeanScope,
  stack: readonly Function[],
): { resolve: ArgResolver; bean: BeanPlan | undefined } | undefined {
  const source = meta.source;
  if (source === undefined || source === 'entity') {
    if (scope.report) {
      scope.problems.error(
        'PIPELINE_BEAN_PARAM_INVALID',
        `${at} has @DefaultValue but no source: add @QueryParam, @PathParam, @HeaderParam, @CookieParam or @FormParam`,
      );
    }
    return undefined;
  }
  const designType = Reflect.getMetadata('design:type', owner.prototype as object, key) as TypeToken | undefined;
  if (source === 'bean') {
    const nested = compileBean(meta.type ?? designType, scope, at, stack);
    return nested === undefined ? undefined : { resolve: nested.resolve, bean: nested.plan };
  }
  if (meta.type === undefined && designType === undefined) {
    if (scope.report) {
      scope.problems.error(
        'PIPELINE_BEAN_FIELD_UNTYPED',
        `${at} has no declared type (design:type): compile with "emitDecoratorMetadata": true, or give the type, e.g. @QueryParam('${meta.name ?? key}', { type: Number })`,
      );
    }
    return undefined;
  }
  if (source === 'path' && meta.name !== undefined && !scope.variables.includes(meta.name)) {
    if (scope.report) {
      const vars = scope.variables.length > 0 ? ` (variables: ${scope.variables.join(', ')})` : '';
      scope.problems.error(
        'PIPELINE_UNKNOWN_PATH_PARAM',
        `${at}: @PathParam('${meta.name}') names no variable of its path '${scope.path}'${vars}: fix the name or the template`,
      );
    }
    return undefined;
  }
  try {
    return { resolve: compileParam(meta, designType, scope.info, scope.providers, at), bean: undefined };
  } catch (e) {
    if (!(e instanceof ModelProblemError)) throw e;
    if (scope.report) scope.problems.error(e.code, e.message);
    return undefined;
  }
}

/**
 * A fresh instance per request, so nothing of one request's fields reaches the next. An absent
 * value (undefined: no parameter and no `@DefaultValue`) leaves the field's initializer in place.
 * Every field is set even after one failed to convert: the 400 names all of them, and carries the
 * instance (`partial`) so the constraints of the fields that converted still run (core/stages/resolve-args.ts
 * `resolveArguments`).
 */
function instantiate(cls: Constructor, setters: ReadonlyArray<{ key: string; resolve: ArgResolver }>): ArgResolver {
  const keys = setters.map((s) => s.key);
  const resolvers = setters.map((s) => s.resolve);
  const n = keys.length;
  return (ex) => {
    const bean = new cls() as Record<string, unknown>;
    let failed: ParamConversionError | undefined;
    for (let i = 0; i < n; i++) {
      let v: unknown;
      try {
        v = resolvers[i]!(ex);
      } catch (e) {
        failed = collectConversion(e, failed);
        // A nested bean that failed in part is still set, for its converted fields' constraints.
        v = (e as ParamConversionError).partial;
      }
      if (v !== undefined) bean[keys[i]!] = v;
    }
    if (failed !== undefined) {
      failed.partial = bean;
      throw failed;
    }
    return bean;
  };
}

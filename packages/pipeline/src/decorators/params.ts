import { paramMeta, type ParamMeta, type ParamSource } from '../core/model/metadata.js';
import { fieldParamMeta } from '../core/model/bean-meta.js';
import type { Constructor, TypeToken } from '../core/context/contracts.js';

/** Options shared by the parameter decorators. */
export interface ParamOptions {
  /** Explicit type, overriding the declared TypeScript type (needed for array element types). */
  type?: TypeToken;
  /** Element type of an array parameter (repeated query or header values). */
  elementType?: TypeToken;
}

/**
 * A decorator for a resource method's parameter or for a field of a `@BeanParam` class
 * (Jakarta REST 3.1 §3.2: fields and bean properties). On a field the type comes from `design:type`.
 */
export type ParamDecorator = ParameterDecorator & PropertyDecorator;

/** The metadata a decorator writes: a method parameter's when `index` is given, else a field's. */
function metaOf(target: object, propertyKey: string | symbol | undefined, index: number | undefined, decorator: string): ParamMeta {
  if (typeof index === 'number') return paramMeta((target as { constructor: object }).constructor, String(propertyKey), index);
  if (typeof target === 'function') {
    throw new TypeError(
      `@${decorator}() on static field ${target.name}.${String(propertyKey)}: use it on an instance field of a @BeanParam class`,
    );
  }
  const ctor = (target as { constructor: Function }).constructor;
  if (typeof propertyKey !== 'string') {
    throw new TypeError(`@${decorator}() on ${ctor.name}.${String(propertyKey)}: @BeanParam fields need string names`);
  }
  return fieldParamMeta(ctor, propertyKey);
}

function param(decorator: string, source: ParamSource, name: string | undefined, options?: ParamOptions): ParamDecorator {
  return (target: object, propertyKey: string | symbol | undefined, index?: number): void => {
    const p = metaOf(target, propertyKey, index, decorator);
    p.source = source;
    if (name !== undefined) p.name = name;
    if (options?.type !== undefined) p.type = options.type;
    if (options?.elementType !== undefined) p.elementType = options.elementType;
  };
}

/**
 * A path template variable, e.g. `{id}`.
 * @example
 * \@GET('{id}') get(\@PathParam('id') id: number) {}
 */
export const PathParam = (name: string, options?: ParamOptions): ParamDecorator => param('PathParam', 'path', name, options);
/**
 * A query parameter; arrays collect repeated values.
 * @example
 * \@GET() list(\@QueryParam('page') \@DefaultValue('1') page: number) {}
 */
export const QueryParam = (name: string, options?: ParamOptions): ParamDecorator => param('QueryParam', 'query', name, options);
/** A request header (case-insensitive). */
export const HeaderParam = (name: string, options?: ParamOptions): ParamDecorator =>
  param('HeaderParam', 'header', name.toLowerCase(), options);
/** A cookie value. */
export const CookieParam = (name: string, options?: ParamOptions): ParamDecorator => param('CookieParam', 'cookie', name, options);
/** A field of an `application/x-www-form-urlencoded` body. */
export const FormParam = (name: string, options?: ParamOptions): ParamDecorator => param('FormParam', 'form', name, options);

/** Value used when the parameter is absent; converted at start-up, so a bad default fails early. */
export function DefaultValue(value: string): ParamDecorator {
  return (target: object, propertyKey: string | symbol | undefined, index?: number): void => {
    metaOf(target, propertyKey, index, 'DefaultValue').defaultValue = value;
  };
}

/**
 * Injects a pipeline object chosen by the declared type (or `token`): `ContainerRequestContext`,
 * `UriInfo`, `HttpHeaders`, `SecurityContext`, `ResourceInfo`, `IncomingMessage`, `ServerResponse`,
 * `AbortSignal`, or a type a feature adds (`SseEventSink`, `Sse`). Any other type, including the
 * `Object` TypeScript emits for a class imported with `import type`, is refused by `build()`
 * (`PIPELINE_CONTEXT_TYPE_UNKNOWN`): import the class as a value, or pass it as `token`.
 * @example get(@Context() uri: UriInfo, @Context(SecurityContext) security: SecurityContext) {}
 */
export function Context(token?: TypeToken): ParamDecorator {
  return (target: object, propertyKey: string | symbol | undefined, index?: number): void => {
    const p = metaOf(target, propertyKey, index, 'Context');
    p.source = 'context';
    if (token !== undefined) p.type = token;
  };
}

/**
 * Marks the entity parameter explicitly. Un-annotated parameters are the entity anyway; use this to
 * give a type TypeScript cannot emit (interfaces, generics) or to allow an absent body.
 */
export function Entity(type?: TypeToken, options: { optional?: boolean } = {}): ParameterDecorator {
  return (target, propertyKey, index) => {
    const p = paramMeta((target as { constructor: object }).constructor, String(propertyKey), index);
    p.source = 'entity';
    if (type !== undefined) p.type = type;
    if (options.optional === true) p.optional = true;
  };
}

/**
 * A parameter object (Jakarta REST 3.1 §3.2, `@BeanParam`): per request, the class is built with
 * a plain `new Type()` (no container; its constructor must take no arguments) and each field
 * carrying `@QueryParam`, `@PathParam`, `@HeaderParam`, `@CookieParam`, `@FormParam`, `@Context`
 * or a nested `@BeanParam` is set, converted exactly as a method parameter would be (`@DefaultValue`
 * included). A field whose value is absent keeps its initializer. The class comes from the declared
 * type, or from `type` (needed for interfaces, or where metadata is not emitted). Constraints
 * (`@Min`, `@NotNull`...) on those fields are checked in the VALIDATION slot.
 * @example
 * class Paging {
 *   \@QueryParam('page') \@DefaultValue('1') \@Min(1) page!: number;
 *   \@QueryParam('size') \@DefaultValue('20') \@Max(100) size!: number;
 *   \@HeaderParam('x-tenant') tenant?: string;
 * }
 * \@GET() list(\@BeanParam() paging: Paging) {}
 */
export function BeanParam(type?: Constructor): ParamDecorator {
  if (type !== undefined && typeof type !== 'function') throw new TypeError('@BeanParam(Type) needs a class');
  return (target: object, propertyKey: string | symbol | undefined, index?: number): void => {
    const p = metaOf(target, propertyKey, index, 'BeanParam');
    p.source = 'bean';
    if (type !== undefined) p.type = type;
  };
}

import { paramMeta, type ParamSource } from '../core/model/metadata.js';
import type { TypeToken } from '../core/context/providers.js';

/** Options shared by the parameter decorators. */
export interface ParamOptions {
  /** Explicit type, overriding the declared TypeScript type (needed for array element types). */
  type?: TypeToken;
  /** Element type of an array parameter (repeated query or header values). */
  elementType?: TypeToken;
}

function param(source: ParamSource, name: string | undefined, options?: ParamOptions): ParameterDecorator {
  return (target, propertyKey, index) => {
    const p = paramMeta((target as { constructor: object }).constructor, String(propertyKey), index);
    p.source = source;
    if (name !== undefined) p.name = name;
    if (options?.type !== undefined) p.type = options.type;
    if (options?.elementType !== undefined) p.elementType = options.elementType;
  };
}

/** A path template variable, e.g. `{id}`. */
export const PathParam = (name: string, options?: ParamOptions): ParameterDecorator => param('path', name, options);
/** A query parameter; arrays collect repeated values. */
export const QueryParam = (name: string, options?: ParamOptions): ParameterDecorator => param('query', name, options);
/** A request header (case-insensitive). */
export const HeaderParam = (name: string, options?: ParamOptions): ParameterDecorator => param('header', name.toLowerCase(), options);
/** A cookie value. */
export const CookieParam = (name: string, options?: ParamOptions): ParameterDecorator => param('cookie', name, options);
/** A field of an `application/x-www-form-urlencoded` body. */
export const FormParam = (name: string, options?: ParamOptions): ParameterDecorator => param('form', name, options);

/** Value used when the parameter is absent; converted at start-up, so a bad default fails early. */
export function DefaultValue(value: string): ParameterDecorator {
  return (target, propertyKey, index) => {
    paramMeta((target as { constructor: object }).constructor, String(propertyKey), index).defaultValue = value;
  };
}

/**
 * Injects a pipeline object chosen by the declared type (or `token`): `ContainerRequestContext`,
 * `UriInfo`, `HttpHeaders`, `SecurityContext`, `ResourceInfo`, `IncomingMessage`, `ServerResponse`.
 */
export function Context(token?: TypeToken): ParameterDecorator {
  return (target, propertyKey, index) => {
    const p = paramMeta((target as { constructor: object }).constructor, String(propertyKey), index);
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

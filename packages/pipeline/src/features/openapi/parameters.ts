import { beanFields } from '../../core/model/bean-meta.js';
import type { ParamMeta } from '../../core/model/metadata.js';
import { FORM_PART_TYPE } from '../../core/internal/form-fields.js';
import { Int } from '../../providers/type-tokens.js';
import { ownRules, paramRules, type ConstraintDef } from '../validation/constraints.js';
import type { JsonSchema } from './decorators.js';
import { mergeSchemas } from './json-schema.js';
import { constraintFacts, scalarSchema } from './schemas.js';

/** An OpenAPI Parameter Object (path, query, header or cookie). */
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}

/** What a resource method (or locator) reads from the request, as the build compiles it (build-routes.ts `compileArgs`). */
export interface MethodInputs {
  readonly parameters: ParameterObject[];
  /** Form fields (`@FormParam`, also inside `@BeanParam`s), read from a urlencoded body. */
  readonly form: { properties: Record<string, JsonSchema>; required: string[]; parts: string[] } | undefined;
  /** The entity parameter: its type and whether the body may be absent. */
  readonly entity: { readonly type: unknown; readonly optional: boolean } | undefined;
}

/** The constraints on one field of a `@BeanParam` class, its superclasses' first (arguments.ts `fieldConstraints`). */
function fieldConstraints(cls: Function, key: string): ConstraintDef[] {
  const chain: Function[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  return chain.flatMap((c) => ownRules(c)?.get(key)?.constraints ?? []);
}

/**
 * A type whose `@FormParam` receives a multipart part itself (`EntityPart`, marked by the
 * multipart entry with {@link FORM_PART_TYPE}, so this module never imports it nor busboy).
 */
const isPartType = (type: unknown): boolean =>
  typeof type === 'function' && (type as unknown as { [FORM_PART_TYPE]?: unknown })[FORM_PART_TYPE] === true;

/**
 * A part's bytes, as OpenAPI 3.1 writes binary content in a multipart body (§4.8.14.3: the
 * schema says a string of `contentMediaType`; `format: binary` for 3.0-era tools).
 */
const BINARY_PART: JsonSchema = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' };

/** A `@DefaultValue` as its converted value (core/build/compile-params.ts converts it the same way at start-up). */
function converted(raw: string, type: unknown): unknown {
  if (type === Number || type === Int) return Number(raw);
  if (type === Boolean) return raw.toLowerCase() === 'true';
  if (type === BigInt) return Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
  return raw;
}

/** A path template read for the document: `/users/{id: \d+}` → `/users/{id}`, and each variable with its regex. */
export function scanTemplate(template: string): { path: string; variables: Array<{ name: string; regex: string | undefined }> } {
  const variables: Array<{ name: string; regex: string | undefined }> = [];
  let path = '';
  for (let i = 0; i < template.length; i++) {
    if (template[i] !== '{') {
      path += template[i];
      continue;
    }
    // Braces inside a regex balance (path-template.ts checks it at start-up).
    let depth = 1;
    let j = i + 1;
    for (; j < template.length && depth > 0; j++) {
      const d = template[j];
      if (d === '\\') j++;
      else if (d === '{') depth++;
      else if (d === '}') depth--;
    }
    const body = template.slice(i + 1, j - 1);
    const colon = body.indexOf(':');
    const name = (colon < 0 ? body : body.slice(0, colon)).trim();
    variables.push({ name, regex: colon < 0 ? undefined : body.slice(colon + 1).trim() });
    path += `{${name}}`;
    i = j - 1;
  }
  return { path, variables };
}

/** Reads the inputs of `cls.method` from its parameter metadata, `design:paramtypes` and constraints. */
export function methodInputs(
  cls: Function,
  methodName: string,
  params: readonly (ParamMeta | undefined)[],
  template: string,
): MethodInputs {
  const designTypes = (Reflect.getMetadata('design:paramtypes', cls.prototype as object, methodName) as unknown[] | undefined) ?? [];
  const fn = (cls.prototype as Record<string, Function | undefined>)[methodName];
  const rules = paramRules(cls, methodName);
  const regexes = new Map(scanTemplate(template).variables.map((v) => [v.name, v.regex]));
  const parameters: ParameterObject[] = [];
  let form: MethodInputs['form'];
  let entity: MethodInputs['entity'];
  const add = (p: ParamMeta, designType: unknown, constraints: readonly ConstraintDef[], depth: number): void => {
    if (p.source === 'context') return;
    if (p.source === 'bean') {
      const beanType = p.type ?? designType;
      if (typeof beanType !== 'function' || depth > 8) return;
      for (const f of beanFields(beanType)) {
        const fieldType: unknown = f.meta.type ?? Reflect.getMetadata('design:type', f.owner.prototype as object, f.key);
        add(f.meta, fieldType, fieldConstraints(beanType, f.key), depth + 1);
      }
      return;
    }
    if (p.source === undefined || p.source === 'entity') {
      entity = { type: p.type ?? designType ?? Object, optional: p.optional === true };
      return;
    }
    const name = p.name!;
    const facts = constraintFacts(constraints);
    const type = p.type ?? designType ?? String;
    const isArray = type === Array;
    const part = p.source === 'form' && isPartType(isArray ? p.elementType : type);
    const one = (t: unknown): JsonSchema => (part ? { ...BINARY_PART } : (scalarSchema(t) ?? { type: 'string' }));
    let schema: JsonSchema = isArray ? { type: 'array', items: one(p.elementType ?? String) } : one(type);
    schema = mergeSchemas(schema, facts.fragments);
    const regex = p.source === 'path' ? regexes.get(name) : undefined;
    if (regex !== undefined && (schema.type === 'string' || schema.type === undefined)) {
      schema = mergeSchemas(schema, [{ pattern: `^(?:${regex})$` }]);
    }
    if (p.defaultValue !== undefined) {
      const d = converted(p.defaultValue, isArray ? p.elementType : type);
      schema.default = isArray ? [d] : d;
    }
    if (p.source === 'form') {
      form ??= { properties: {}, required: [], parts: [] };
      form.properties[name] = schema;
      if (part) form.parts.push(name);
      if (facts.required) form.required.push(name);
      return;
    }
    const param: ParameterObject = { name, in: p.source, required: p.source === 'path' || facts.required, schema };
    if (isArray && p.source === 'query') Object.assign(param, { style: 'form', explode: true });
    if (!parameters.some((q) => q.name === name && q.in === param.in)) parameters.push(param);
  };
  const count = Math.max(designTypes.length, params.length, fn?.length ?? 0);
  for (let i = 0; i < count; i++) add(params[i] ?? {}, designTypes[i], rules?.[i] ?? [], 0);
  return { parameters, form, entity };
}

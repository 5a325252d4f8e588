import { STATUS_CODES } from 'node:http';
import type { Constructor, FeatureContext } from '../../core/context/contracts.js';
import type { NameBindingDecorator, ResourceInfo } from '../../core/context/resource-info.js';
import { effectiveResource, type MethodMeta } from '../../core/model/metadata.js';
import { Response, ResponseBuilder } from '../../core/http/response.js';
import { joinPaths } from '../../core/routing/path-template.js';
import { parseMediaType } from '../../core/http/media-type.js';
import { isBinaryType, isJsonMediaType, isRangeableType, isStreamType } from '../../providers/type-tokens.js';
import { RolesAllowed } from '../security/annotations.js';
import { DenyAllFilter, RolesAllowedFeature } from '../security/roles-allowed-feature.js';
import { mergeSchemas } from './json-schema.js';
import { apiMeta, type ApiHeader, type ApiResponseOptions, type JsonSchema } from './decorators.js';
import type { OpenApiOptions, OperationDoc } from './options.js';
import { methodInputs, scanTemplate, type MethodInputs, type ParameterObject } from './parameters.js';
import type { SchemaRegistry } from './schemas.js';
import { APPLICATION_PROBLEM_JSON } from '../../core/internal/error-format.js';

/** One documented operation: its OpenAPI path (relative to the base path), method and Operation Object. */
export interface DocumentedOperation {
  readonly path: string;
  readonly method: string;
  readonly operation: Record<string, unknown>;
}

/** The state one document's operations share. */
export interface OperationContext {
  readonly options: OpenApiOptions;
  readonly registry: SchemaRegistry;
  readonly operationIds: Set<string>;
  /** Sub-resource class → the locators declaring it as their return type (found from the classes seen). */
  readonly locators: Map<Function, Array<{ cls: Function; methodName: string; meta: MethodMeta }>>;
  readonly scanned: Set<Function>;
  /** Component response names of the error statuses used so far. */
  readonly errors: Set<number>;
  /** The error body's schema reference (`components.schemas.Error`, or the errorSchema class's). */
  readonly errorRef: JsonSchema;
  /**
   * Problem details (RFC 9457) beside or instead of the error body, as the application's
   * `errorFormat` writes them: `'problem'` only them, `'negotiate'` both; undefined for `'json'`.
   */
  readonly problem: { readonly format: 'problem' | 'negotiate'; readonly ref: JsonSchema } | undefined;
}

/**
 * The content of an error response whose body is the application's error body: in the error media
 * types, and as `application/problem+json` when the application's `errorFormat` writes problem
 * details (only them under `'problem'`, beside the error body under `'negotiate'`).
 */
export function errorContent(mediaTypes: readonly string[], ctx: OperationContext): Record<string, unknown> {
  const problem = ctx.problem;
  const out: Record<string, unknown> = problem?.format === 'problem' ? {} : content(ctx.errorRef, mediaTypes);
  if (problem !== undefined) out[APPLICATION_PROBLEM_JSON] = { schema: problem.ref };
  return out;
}

/** The shared error responses: component name and description, by status. */
export const ERROR_RESPONSES: ReadonlyMap<number, string> = new Map([
  [400, 'BadRequest'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'NotFound'],
  [406, 'NotAcceptable'],
  [413, 'PayloadTooLarge'],
  [415, 'UnsupportedMediaType'],
  [500, 'InternalServerError'],
  [503, 'ServiceUnavailable'],
]);

const isClass = (t: unknown): t is Function => typeof t === 'function' && Function.prototype.toString.call(t).startsWith('class');

/** Indexes the locators of `cls` (and of the classes they return) by the class they declare. */
function scanLocators(cls: Function, ctx: OperationContext): void {
  if (ctx.scanned.has(cls)) return;
  ctx.scanned.add(cls);
  for (const [methodName, { meta }] of effectiveResource(cls as Constructor)?.methods ?? []) {
    if (meta.httpMethods.length > 0 || meta.path === undefined) continue;
    const returned: unknown = Reflect.getMetadata('design:returntype', cls.prototype as object, methodName);
    if (!isClass(returned)) continue;
    const list = ctx.locators.get(returned) ?? [];
    list.push({ cls, methodName, meta });
    ctx.locators.set(returned, list);
    scanLocators(returned, ctx);
  }
}

/** The inputs of the locators on the way to a sub-resource method (its path, query... parameters). */
function locatorInputs(info: ResourceInfo, meta: MethodMeta, ctx: OperationContext): MethodInputs[] {
  const out: MethodInputs[] = [];
  const own = effectiveResource(info.resourceClass);
  if (own?.path !== undefined && joinPaths(own.path, meta.path) === info.path) return out; // a root resource
  let cls: Function = info.resourceClass;
  for (let depth = 0; depth < 16; depth++) {
    const locator = ctx.locators.get(cls)?.[0];
    if (locator === undefined) break;
    out.push(methodInputs(locator.cls, locator.methodName, locator.meta.params, info.path));
    cls = locator.cls;
  }
  return out;
}

function mediaTypesOf(list: readonly string[] | undefined): string[] | undefined {
  if (list === undefined) return undefined;
  const out = list.flatMap((s) => s.split(',')).map((s) => s.trim().replace(/\s*;\s*qs=[^;]*/i, ''));
  return out.length > 0 ? out : undefined;
}

/** The media type a built-in reader or writer uses for a type when the method declares none. */
function defaultMediaType(type: unknown): string {
  if (type === String || type === Number || type === Boolean || type === BigInt) return 'text/plain';
  if (type === URLSearchParams) return 'application/x-www-form-urlencoded';
  if (typeof type === 'function' && (isBinaryType(type) || isStreamType(type) || isRangeableType(type))) return 'application/octet-stream';
  return 'application/json';
}

function header(h: ApiHeader | string): Record<string, unknown> {
  const spec = typeof h === 'string' ? { description: h } : h;
  return {
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.required === undefined ? {} : { required: spec.required }),
    schema: spec.schema ?? { type: 'string' },
  };
}

/** Response Object headers: the common ones, then the response's own. */
export function headersObject(
  common: Readonly<Record<string, ApiHeader | string>> | undefined,
  own: Readonly<Record<string, ApiHeader | string>> | undefined,
): Record<string, unknown> | undefined {
  const entries = [...Object.entries(common ?? {}), ...Object.entries(own ?? {})];
  // RFC 9110: Content-Type is described by the content map; OpenAPI ignores such a header.
  const kept = entries.filter(([name]) => name.toLowerCase() !== 'content-type');
  return kept.length === 0 ? undefined : Object.fromEntries(kept.map(([name, h]) => [name, header(h)]));
}

/** Two schemas that are the same `$ref`. */
function sameRef(a: JsonSchema | undefined, b: JsonSchema): boolean {
  const ref = (b as { $ref?: unknown }).$ref;
  return a !== undefined && typeof ref === 'string' && (a as { $ref?: unknown }).$ref === ref;
}

function content(schema: JsonSchema | undefined, mediaTypes: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(mediaTypes.map((m) => [m, schema === undefined ? {} : { schema }]));
}

function declaredResponse(
  status: string,
  r: ApiResponseOptions,
  produces: readonly string[] | undefined,
  common: Readonly<Record<string, ApiHeader | string>>,
  ctx: OperationContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = { description: r.description ?? STATUS_CODES[status] ?? 'Response' };
  const headers = headersObject(common, r.headers);
  if (headers !== undefined) out.headers = headers;
  if (r.type !== undefined) {
    const schema = ctx.registry.forType(r.type);
    const first = Array.isArray(r.type) ? Array : r.type;
    const isError = status === 'default' || Number(status) >= 400;
    const mediaTypes = r.mediaTypes ??
      (isError ? errorMediaTypes(produces, ctx.options) : undefined) ??
      produces ?? [typeof first === 'function' ? defaultMediaType(first) : 'application/json'];
    // A declared error answered with the error body is written as errorFormat says.
    const isErrorBody = isError && r.mediaTypes === undefined && sameRef(schema, ctx.errorRef);
    out.content = isErrorBody ? errorContent(mediaTypes, ctx) : content(schema, mediaTypes);
  }
  return out;
}

/**
 * The media types an error body is really written in on an operation producing `produces`: the
 * error entity goes to the route's negotiated type only when a writer can write it there (a JSON
 * type, `+json` included, RFC 6839 §3.1), else to the writers' type for it, the error media type
 * (core/internal/writers.ts `chooseMediaType`); an error raised before matching always gets the latter.
 * So an event stream, plain-text or XML operation answers its errors in JSON, not in its success type.
 */
function errorMediaTypes(produces: readonly string[] | undefined, options: OpenApiOptions): string[] {
  const json = (produces ?? []).filter((m) => {
    const parsed = parseMediaType(m);
    return parsed !== undefined && isJsonMediaType(parsed);
  });
  // An error raised before matching (a pre-matching filter) has no route type: always the error media type.
  const fallback = options.errorMediaType ?? 'application/json';
  return json.includes(fallback) ? json : [...json, fallback];
}

/** `getUser` → `Get user`: a readable default summary from a method name (OpenAPI tools list operations by it). */
export function summaryOf(methodName: string): string {
  const words = methodName
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .map((w, i) => (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : /^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase()));
  return words.join(' ') || methodName;
}

/**
 * Header parameters declared by `requestHeaders` (a filter's, then the operation's): added after
 * the method's own parameters; one a `@HeaderParam` already documents takes the declared spelling
 * and description, and a declared schema adds to its converted one (header names are
 * case-insensitive, RFC 9110 §5.1).
 */
function addRequestHeaders(parameters: ParameterObject[], headers: Readonly<Record<string, ApiHeader | string>>): void {
  for (const [name, h] of Object.entries(headers)) {
    const spec = typeof h === 'string' ? { description: h } : h;
    const existing = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase());
    if (existing !== undefined) {
      existing.name = name; // the declared spelling (a @HeaderParam's name is kept in lower case)
      if (spec.description !== undefined) existing.description = spec.description;
      if (spec.required === true) existing.required = true;
      // What the application checks beyond the conversion (a length, a pattern) adds to the converted schema.
      if (spec.schema !== undefined) existing.schema = mergeSchemas(existing.schema, [spec.schema]);
      continue;
    }
    parameters.push({
      name,
      in: 'header',
      required: spec.required === true,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      schema: spec.schema ?? { type: 'string' },
    });
  }
}

/** The responses a method may give when it declares none: its return type's 200 (or 204 for `void`). */
function defaultSuccess(
  info: ResourceInfo,
  produces: readonly string[] | undefined,
  common: Readonly<Record<string, ApiHeader | string>>,
  ctx: OperationContext,
): Record<string, unknown> {
  const returned: unknown = Reflect.getMetadata('design:returntype', info.resourceClass.prototype as object, info.methodName);
  const headers = headersObject(common, undefined);
  const withHeaders = (o: Record<string, unknown>): Record<string, unknown> => (headers === undefined ? o : { ...o, headers });
  // `void` and an undeclared return type both read as undefined: the method answers 204 when it returns nothing.
  const known =
    returned !== undefined && returned !== Object && returned !== Promise && returned !== Response && returned !== ResponseBuilder;
  const schema = known ? ctx.registry.forType(returned) : undefined;
  const ok = withHeaders({
    description: STATUS_CODES[200]!,
    content: content(schema, produces ?? [defaultMediaType(known ? returned : Object)]),
  });
  if (returned !== undefined) return { 200: ok };
  return { 200: ok, 204: withHeaders({ description: STATUS_CODES[204]! }) };
}

/** The security requirements covering `info`, and whether a role check can also answer 403. */
function securityOf(
  info: ResourceInfo,
  options: OpenApiOptions,
): { requirements: Record<string, string[]>[]; forbidden: boolean; denied: boolean } {
  const names = new Set<string>();
  let forbidden = false;
  let denied = false;
  for (const rule of options.security ?? []) {
    if (rule.when !== undefined && !rule.when(info)) continue;
    let applies = true;
    if (rule.binding === (RolesAllowed as unknown)) {
      // The feature's own decision (method-level PermitAll, DenyAll), not a second copy of it.
      const registered: object[] = [];
      const probe: FeatureContext = {
        register(provider) {
          registered.push(provider);
          return this;
        },
      };
      new RolesAllowedFeature().configure(info, probe);
      applies = registered.some((p) => !(p instanceof DenyAllFilter));
      if (registered.some((p) => p instanceof DenyAllFilter)) denied = true;
      if (applies) forbidden = true;
    } else if (rule.binding !== undefined) {
      applies = info.bindings.has(rule.binding as unknown as NameBindingDecorator);
    }
    if (applies) for (const s of rule.schemes) names.add(s);
  }
  return { requirements: [...names].map((n) => ({ [n]: [] })), forbidden, denied };
}

/** Adds `status` as a reference to the shared error response, unless the method documents it. */
function addError(responses: Record<string, unknown>, status: number, ctx: OperationContext): void {
  if (Object.hasOwn(responses, String(status))) return;
  ctx.errors.add(status);
  responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES.get(status)!}` };
}

/**
 * The Operation Object of one resource method and HTTP method, from the same metadata the build
 * compiles (build-routes.ts): parameters with their types, defaults and constraints, the entity,
 * media types, and every status the pipeline itself can answer for it. Undefined when hidden.
 */
export function documentOperation(info: ResourceInfo, ctx: OperationContext): DocumentedOperation | undefined {
  const cls = info.resourceClass;
  const resource = effectiveResource(cls);
  const meta = resource?.methods.get(info.methodName)?.meta;
  if (resource === undefined || meta === undefined) return undefined;
  const classDoc = apiMeta(cls, '');
  const methodDoc = apiMeta(cls, info.methodName);
  const optionDoc: OperationDoc | undefined = ctx.options.operations?.[`${cls.name}.${info.methodName}`];
  if (classDoc?.hidden === true || methodDoc?.hidden === true || optionDoc?.hidden === true) return undefined;
  scanLocators(cls, ctx);

  const { path, variables } = scanTemplate(info.path);
  const own = methodInputs(cls, info.methodName, meta.params, info.path);
  const inputs = [own, ...locatorInputs(info, meta, ctx)];
  const parameters: ParameterObject[] = [];
  for (const i of inputs) for (const p of i.parameters) if (!parameters.some((q) => q.name === p.name && q.in === p.in)) parameters.push(p);
  for (const v of variables) {
    // A variable no parameter reads (or read by a locator this document could not see) is still part of the path.
    if (parameters.some((p) => p.in === 'path' && p.name === v.name)) continue;
    const schema: JsonSchema = v.regex === undefined ? { type: 'string' } : { type: 'string', pattern: `^(?:${v.regex})$` };
    parameters.push({ name: v.name, in: 'path', required: true, schema });
  }
  const consumes = mediaTypesOf(meta.consumes ?? resource.consumes);
  const produces = mediaTypesOf(meta.produces ?? resource.produces);

  const operation: Record<string, unknown> = {};
  const opDoc = { ...methodDoc?.operation, ...optionDoc };
  operation.tags = optionDoc?.tags ?? methodDoc?.tags ?? classDoc?.tags ?? [cls.name || 'default'];
  operation.summary = opDoc.summary ?? summaryOf(info.methodName);
  if (opDoc.description !== undefined) operation.description = opDoc.description;
  let id = opDoc.operationId ?? `${cls.name || 'Resource'}_${info.methodName}`;
  for (let n = 2; ctx.operationIds.has(id); n++) id = `${opDoc.operationId ?? `${cls.name || 'Resource'}_${info.methodName}`}_${n}`;
  ctx.operationIds.add(id);
  operation.operationId = id;
  if (opDoc.deprecated === true) operation.deprecated = true;

  const entity = own.entity;
  const form = own.form;
  if (entity !== undefined) {
    const schema = ctx.registry.forType(entity.type);
    operation.requestBody = { required: !entity.optional, content: content(schema, consumes ?? [defaultMediaType(entity.type)]) };
  } else if (form !== undefined) {
    const schema: JsonSchema = { type: 'object', properties: form.properties };
    if (form.required.length > 0) schema.required = form.required;
    const body = content(schema, consumes ?? ['application/x-www-form-urlencoded']);
    for (const [m, media] of Object.entries(body)) {
      // OpenAPI 3.1 §4.8.15: each multipart part's Content-Type (bytes for an EntityPart, text for a field).
      if (!m.toLowerCase().startsWith('multipart/')) continue;
      const encoding = Object.fromEntries(
        Object.keys(form.properties).map((name) => [
          name,
          { contentType: form.parts.includes(name) ? 'application/octet-stream' : 'text/plain' },
        ]),
      );
      Object.assign(media as Record<string, unknown>, { encoding });
    }
    operation.requestBody = { required: form.required.length > 0, content: body };
  }
  const declaredBody = opDoc.requestBody;
  if (declaredBody !== undefined) {
    const schema = ctx.registry.forType(declaredBody.type);
    const first = Array.isArray(declaredBody.type) ? Array : declaredBody.type;
    const body = content(
      schema,
      declaredBody.mediaTypes ?? consumes ?? [typeof first === 'function' ? defaultMediaType(first) : 'application/json'],
    );
    if (declaredBody.encoding !== undefined) {
      const encoding = Object.fromEntries(Object.entries(declaredBody.encoding).map(([name, contentType]) => [name, { contentType }]));
      for (const [m, media] of Object.entries(body))
        if (m.toLowerCase().startsWith('multipart/')) Object.assign(media as object, { encoding });
    }
    const generated = operation.requestBody as { required?: boolean } | undefined;
    operation.requestBody = {
      ...(declaredBody.description === undefined ? {} : { description: declaredBody.description }),
      required: declaredBody.required ?? generated?.required ?? true,
      content: body,
    };
  }

  const declared = new Map<string, ApiResponseOptions>();
  let common: Record<string, ApiHeader | string> = { ...ctx.options.headers };
  let requestHeaders: Record<string, ApiHeader | string> = {};
  for (const f of ctx.options.filters ?? []) {
    if (f.binding !== undefined && !info.bindings.has(f.binding as unknown as NameBindingDecorator)) continue;
    common = { ...common, ...f.headers };
    requestHeaders = { ...requestHeaders, ...f.requestHeaders };
    for (const [s, r] of Object.entries(f.responses ?? {})) declared.set(s, r);
  }
  requestHeaders = { ...requestHeaders, ...methodDoc?.operation?.requestHeaders, ...optionDoc?.requestHeaders };
  // Only what the pipeline converts can fail conversion (400); declared headers are read by others.
  const converts = parameters.length > 0;
  addRequestHeaders(parameters, requestHeaders);
  if (parameters.length > 0) operation.parameters = parameters;
  const ownResponses = new Map<string, ApiResponseOptions>();
  for (const source of [classDoc?.responses, methodDoc?.responses]) for (const [s, r] of source ?? []) ownResponses.set(String(s), r);
  for (const [s, r] of Object.entries(optionDoc?.responses ?? {})) ownResponses.set(s, r);
  for (const [s, r] of ownResponses) declared.set(s, r);
  const responses: Record<string, unknown> = {};
  // The operation's own success statuses replace the default one (a filter's 304 does not).
  const success = [...ownResponses.keys()].some((s) => /^[123]/.test(s));
  if (!success) Object.assign(responses, defaultSuccess(info, produces, common, ctx));
  for (const [s, r] of declared) responses[s] = declaredResponse(s, r, produces, common, ctx);

  const security = securityOf(info, ctx.options);
  if (security.requirements.length > 0) {
    operation.security = security.requirements;
    addError(responses, 401, ctx);
  } else if (ctx.options.securitySchemes !== undefined || (ctx.options.security ?? []).length > 0) {
    // Public: say so, rather than leave tools to guess (an empty requirement list, OpenAPI 3.1 §4.8.10.2).
    operation.security = [];
  }
  if (security.forbidden || security.denied) addError(responses, 403, ctx);
  const readsBody = entity !== undefined || form !== undefined;
  if (converts || readsBody) addError(responses, 400, ctx);
  if (variables.length > 0) addError(responses, 404, ctx);
  if (produces !== undefined) addError(responses, 406, ctx);
  if (readsBody) addError(responses, 413, ctx);
  if (readsBody || consumes !== undefined) addError(responses, 415, ctx);
  addError(responses, 500, ctx);
  if ((meta.deadline ?? resource.deadline) !== undefined) addError(responses, 503, ctx);
  operation.responses = responses;
  return { path, method: info.httpMethod.toLowerCase(), operation };
}

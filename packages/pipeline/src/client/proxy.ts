/**
 * Typed clients from contracts: a class (abstract or not) carrying the pipeline's decorators, the
 * same one a server resource uses or extends (inherited contracts, Jakarta REST 3.1 §3.6, read with
 * `effectiveResource`). Each resource method becomes a function with the method's parameter types
 * that sends the request its decorators describe; the plan (URI template, parameter conversions,
 * media types, chains) is made once per contract and client, and a contract that cannot be called
 * fails there, naming the class and the member.
 */
import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Constructor, ParamConverterProvider, ParamInfo, TypeToken } from '../core/context/contracts.js';
import { ResourceInfo, type NameBindingDecorator } from '../core/context/resource-info.js';
import type { ServerOnly } from '../core/context/server-only.js';
import { Response, ResponseBuilder } from '../core/http/response.js';
import { beanFields } from '../core/model/bean-meta.js';
import { effectiveResource, type MethodMeta, type ParamMeta } from '../core/model/metadata.js';
import { UriBuilder } from '../core/model/resource-paths.js';
import { compileTemplate, joinPaths } from '../core/routing/path-template.js';
import { typeName } from '../core/util/type-name.js';
import { apiMeta } from '../features/openapi/decorators.js';
import type { EntityPart } from '../features/multipart/entity-part.js';
import { call, type CallInput } from './invoke.js';
import type { CallOptions } from './options.js';
import { eachValue, textFor, type ToText } from './params.js';
import { setRangeHeaders } from './range.js';
import type { ClientChains } from './registry.js';
import type { ClientHeaders } from './request-context.js';
import type { ClientResponse } from './response.js';
import { entityResult } from './result.js';
import type { ClientState } from './state.js';

/** A class, abstract or not, used as a contract. @example const c: Contract<UserContract> = UserContract; */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Contract<T = unknown> = abstract new (...args: any[]) => T;

/**
 * What a contract method resolves with on the client: its entity. A `Response<T>` return gives `T`
 * (the entity the method declares, e.g. `create(...): Promise<Response<User>>` gives `User`); a
 * plain `Response` or a `ResponseBuilder` is untyped (`unknown`).
 * @example type U = ProxiedResult<Response<User>>; // User
 */
export type ProxiedResult<R> = R extends Response<infer E> ? E : R extends ResponseBuilder ? unknown : R;

/**
 * Is a parameter of type `P` one the server supplies: a {@link ServerOnly} type (what `@Context()`
 * injects: `ContainerRequestContext`, `UriInfo`, `HttpHeaders`, `SecurityContext`, `ResourceInfo`,
 * `Sse`, `SseEventSink`) or Node's own request or response? (`any` and `unknown` are not.)
 */
type IsServerOnly<P> = 0 extends 1 & P
  ? false
  : [NonNullable<P>] extends [never]
    ? false
    : [NonNullable<P>] extends [ServerOnly | IncomingMessage | ServerResponse]
      ? true
      : false;

/**
 * What a client may pass for a parameter declared `P`: a streamed body (`Readable`) may also be any
 * async iterable of chunks, and a multipart body (`MultipartBody`, an async iterable of parts) a
 * list of `EntityPart`s, which `ClientMultipartFeature` sends; anything else as declared.
 */
type ClientArgument<P> = [NonNullable<P>] extends [never]
  ? P
  : [NonNullable<P>] extends [Readable]
    ? P | AsyncIterable<Uint8Array | string>
    : [NonNullable<P>] extends [AsyncIterable<EntityPart>]
      ? P | readonly EntityPart[]
      : P;

/**
 * The parameters of a contract method as a client passes them: `A` without the parameters the
 * server supplies ({@link IsServerOnly}), in order (streams and multipart bodies widened as
 * {@link ClientArgument} says). An `AbortSignal` parameter stays: on the server `@Context()` gives
 * it the request's signal; from the client it is the call's signal. A method with no such
 * parameter keeps its parameter names; leaving some out loses them (TypeScript cannot keep the
 * labels of a rebuilt tuple).
 * @example type P = ClientParameters<[id: number, ctx: ContainerRequestContext, key?: string]>; // [number, string?]
 */
export type ClientParameters<A extends unknown[]> = true extends { [K in keyof A]: IsServerOnly<A[K]> }[number]
  ? WithoutServerOnly<A>
  : { [K in keyof A]: ClientArgument<A[K]> };

/** `A` without its server-only elements (a rest parameter, which no resource method has, is left as declared). */
type WithoutServerOnly<A extends unknown[]> = number extends A['length']
  ? A
  : A extends []
    ? []
    : A extends [infer H, ...infer R]
      ? IsServerOnly<H> extends true
        ? WithoutServerOnly<R>
        : [ClientArgument<H>, ...WithoutServerOnly<R>]
      : A extends [(infer H)?, ...infer R]
        ? IsServerOnly<H> extends true
          ? WithoutServerOnly<R>
          : [ClientArgument<H>?, ...WithoutServerOnly<R>]
        : A;

/**
 * The typed client of a contract `T`: each method takes the contract method's parameters, less the
 * ones the server supplies ({@link ClientParameters}), and resolves with its (awaited) return type,
 * the entity read from the response ({@link ProxiedResult}); error statuses reject
 * (`ResponseExceptionMapper`s, else `ClientResponseError`). The entity is read as the method's
 * declared return type when TypeScript emits one (a class such as `Readable`, `String` or a
 * reader's token, on a method that does not return a Promise), else as the `type` of its
 * `@ApiResponse` for the status, else by the response's media type.
 * @example const users: ContractClient<UserContract> = client.proxy(UserContract);
 */
export type ContractClient<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: ClientParameters<A>) => Promise<ProxiedResult<Awaited<R>>>
    : never;
};

/**
 * Like {@link ContractClient}, but each method resolves with the {@link ClientResponse} (status,
 * headers, entity), whatever its status; its `readEntity()` is typed with the method's entity.
 * @example const r = await client.responseProxy(UserContract).create(body); r.getHeader('location'); const user = await r.readEntity();
 */
export type ResponseContractClient<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: ClientParameters<A>) => Promise<ClientResponse<ProxiedResult<Awaited<R>>>>
    : never;
};

/** How one argument goes into the request. */
type ArgPlan =
  | { readonly kind: 'path'; readonly name: string; readonly text: ToText }
  | { readonly kind: 'query' | 'header' | 'cookie' | 'form'; readonly name: string; readonly text: ToText }
  | { readonly kind: 'entity'; readonly type: TypeToken | undefined }
  | { readonly kind: 'bean'; readonly fields: ReadonlyArray<{ readonly key: string; readonly plan: ArgPlan }> }
  /** A `@Context() signal: AbortSignal` parameter (the others are the server's: not planned). */
  | { readonly kind: 'context' };

/** One contract method, ready to call. */
export interface MethodPlan {
  readonly name: string;
  readonly info: ResourceInfo;
  readonly httpMethod: string;
  /** The URI template (base URL + class and method `@Path`), or undefined when {@link uri} is fixed. */
  readonly template: UriBuilder | undefined;
  readonly uri: string;
  readonly args: readonly ArgPlan[];
  readonly accept: string | undefined;
  readonly contentType: string | undefined;
  readonly returnType: TypeToken;
  /** The entity type per 2xx status from `@ApiResponse(status, { type })`, for a method whose return type says nothing. */
  readonly entityTypes: ReadonlyMap<number, TypeToken> | undefined;
  readonly chains: ClientChains;
}

/** Types that say nothing about how to read the entity: read by media type. */
const UNTYPED = new Set<unknown>([undefined, Object, Promise, Response, ResponseBuilder, Function]);

/** The plans of every resource method of `contract` (checked now). */
export function planContract(state: ClientState, contract: Contract, caller: string): Map<string, MethodPlan> {
  if (typeof contract !== 'function') throw new TypeError(`${caller}: expected a contract class, got ${typeof contract}`);
  const name = typeName(contract);
  const eff = effectiveResource(contract as Constructor);
  const plans = new Map<string, MethodPlan>();
  if (state.baseUrl === undefined) {
    throw new TypeError(`${caller}(${name}): the client has no baseUrl: give the baseUrl option (or application, for in-process calls)`);
  }
  for (const [method, { meta, declaredBy }] of eff?.methods ?? []) {
    if (meta.httpMethods.length === 0) continue;
    const bindings = new Map<NameBindingDecorator, unknown[]>(eff!.bindings);
    for (const [k, v] of meta.bindings) bindings.set(k, v);
    const path = joinPaths(eff!.path, meta.path);
    const info = new ResourceInfo(contract as Constructor, method, meta.httpMethods[0]!, path, bindings);
    plans.set(method, planMethod(state, info, meta, declaredBy, eff!.produces, eff!.consumes));
  }
  if (plans.size === 0) {
    throw new TypeError(`${caller}(${name}): ${name} has no resource method (a method with @GET, @POST..., declared or inherited) to call`);
  }
  state.used = true;
  return plans;
}

function planMethod(
  state: ClientState,
  info: ResourceInfo,
  meta: MethodMeta,
  declaredBy: Constructor,
  classProduces: readonly string[] | undefined,
  classConsumes: readonly string[] | undefined,
): MethodPlan {
  const where = `${typeName(info.resourceClass)}.${info.methodName}`;
  const proto = declaredBy.prototype as object;
  const getMetadata = typeof Reflect.getMetadata === 'function' ? Reflect.getMetadata.bind(Reflect) : () => undefined;
  const designTypes = (getMetadata('design:paramtypes', proto, info.methodName) as TypeToken[] | undefined) ?? [];
  const fn = (proto as Record<string, unknown>)[info.methodName];
  const count = Math.max(designTypes.length, meta.params.length, typeof fn === 'function' ? fn.length : 0);
  const variables = compileTemplate(info.path).names;
  const converters = state.providers.converters;
  const args: ArgPlan[] = [];
  let entity = false;
  let form = false;
  for (let i = 0; i < count; i++) {
    const p = meta.params[i] ?? {};
    const plan = planArg(p, designTypes[i], info, converters, `${where} (argument ${i})`);
    if (plan.kind === 'path' && !variables.includes(plan.name)) {
      throw new TypeError(
        `${where}: @PathParam('${plan.name}') names no variable of its path '${info.path}': fix the name or the template`,
      );
    }
    if (plan.kind === 'entity') {
      if (entity) throw new TypeError(`${where} has more than one entity parameter (a request has one body)`);
      entity = true;
    }
    if (plan.kind === 'form' || (plan.kind === 'bean' && hasForm(plan))) form = true;
    // What the server supplies is no argument of the client's method (ClientParameters leaves it
    // out of the type): every @Context() parameter but the AbortSignal, the one the server also
    // tells by its token (its design type is exact: a global class, never an `import type`).
    if (plan.kind === 'context' && (p.type ?? designTypes[i]) !== AbortSignal) continue;
    args.push(plan);
  }
  if (entity && form)
    throw new TypeError(`${where} mixes @FormParam with an entity parameter: the form is the body; send one or the other`);
  const template = UriBuilder.fromUri(state.baseUrl!).path(info.path);
  const uri = template.toTemplate();
  const produces = meta.produces ?? classProduces;
  const consumes = (meta.consumes ?? classConsumes)?.flatMap((c) => c.split(',')).map((c) => c.trim());
  const declared = getMetadata('design:returntype', proto, info.methodName) as unknown;
  const untyped = UNTYPED.has(declared) || typeof declared !== 'function';
  return {
    name: info.methodName,
    info,
    httpMethod: info.httpMethod,
    template: uri.includes('{') ? template : undefined,
    uri,
    args,
    accept: produces === undefined || produces.length === 0 ? undefined : produces.join(', '),
    contentType: consumes?.find((c) => !c.includes('*')),
    returnType: untyped ? Object : (declared as TypeToken),
    entityTypes: untyped ? documentedTypes(info.resourceClass, info.methodName) : undefined,
    chains: state.providers.chainsFor(info.bindings),
  };
}

/**
 * The entity classes `@ApiResponse(status, { type })` declares for the 2xx statuses of a method
 * (a `Response`-returning method's only statement of its entity's class), or undefined.
 */
function documentedTypes(cls: Constructor, method: string): ReadonlyMap<number, TypeToken> | undefined {
  let types: Map<number, TypeToken> | undefined;
  for (const [status, { type }] of apiMeta(cls, method)?.responses ?? []) {
    if (typeof status !== 'number' || status < 200 || status > 299 || typeof type !== 'function' || UNTYPED.has(type)) continue;
    (types ??= new Map()).set(status, type);
  }
  return types;
}

function hasForm(plan: Extract<ArgPlan, { kind: 'bean' }>): boolean {
  return plan.fields.some((f) => f.plan.kind === 'form' || (f.plan.kind === 'bean' && hasForm(f.plan)));
}

/** How a parameter (or a `@BeanParam` field) with metadata `p` and declared type `designType` is sent. */
function planArg(
  p: ParamMeta,
  designType: TypeToken | undefined,
  info: ResourceInfo,
  converters: readonly ParamConverterProvider[],
  where: string,
  depth = 0,
): ArgPlan {
  switch (p.source) {
    case undefined:
    case 'entity': {
      const type = p.type ?? designType;
      return { kind: 'entity', type: UNTYPED.has(type) ? undefined : type };
    }
    case 'context':
      return { kind: 'context' };
    case 'bean': {
      const cls = (p.type ?? designType) as Constructor | undefined;
      if (typeof cls !== 'function' || cls === Object) {
        throw new TypeError(`${where}: @BeanParam needs the class: declare its type, or pass @BeanParam(Type)`);
      }
      if (depth > 8) throw new TypeError(`${where}: @BeanParam classes nest more than 8 levels deep`);
      const getMetadata = typeof Reflect.getMetadata === 'function' ? Reflect.getMetadata.bind(Reflect) : () => undefined;
      const fields = beanFields(cls).map((f) => {
        const type = getMetadata('design:type', f.owner.prototype as object, f.key) as TypeToken | undefined;
        return { key: f.key, plan: planArg(f.meta, type, info, converters, `${typeName(cls)}.${f.key}`, depth + 1) };
      });
      return { kind: 'bean', fields };
    }
    default: {
      const name = p.name!;
      const declared = p.type ?? designType ?? String;
      const type = declared === Array ? (p.elementType ?? String) : declared;
      const pinfo: ParamInfo = { source: p.source, name, type, resourceInfo: info };
      return { kind: p.source, name, text: textFor(converters, type, pinfo, `${where}, ${p.source} parameter '${name}'`) };
    }
  }
}

/** What the arguments of one call put into the request. */
interface Parts {
  values: Record<string, unknown> | undefined;
  query: string;
  headers: ClientHeaders;
  cookies: string | undefined;
  form: URLSearchParams | undefined;
  entity: unknown;
  entityType: TypeToken | undefined;
  signal: AbortSignal | undefined;
}

const scratch: string[] = [];

/** Puts one argument into `parts`. */
function apply(plan: ArgPlan, value: unknown, parts: Parts): void {
  switch (plan.kind) {
    case 'path':
      if (value !== undefined && value !== null) (parts.values ??= {})[plan.name] = plan.text(value);
      return;
    case 'entity':
      parts.entity = value;
      if (plan.type !== undefined) parts.entityType = plan.type;
      return;
    case 'context':
      // Only an AbortSignal parameter is planned as an argument: the call's signal.
      if (value instanceof AbortSignal) parts.signal = value;
      return;
    case 'bean':
      if (value === undefined || value === null) return;
      for (const f of plan.fields) apply(f.plan, (value as Record<string, unknown>)[f.key], parts);
      return;
    default:
  }
  scratch.length = 0;
  eachValue(value, plan.text, scratch);
  if (scratch.length === 0) return;
  const name = plan.name;
  switch (plan.kind) {
    case 'query':
      for (const v of scratch) parts.query += `${parts.query === '' ? '' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(v)}`;
      return;
    case 'header':
      parts.headers[name] = scratch.length === 1 ? scratch[0]! : [...scratch];
      return;
    case 'cookie': {
      const pair = `${name}=${encodeURIComponent(scratch[0]!)}`;
      parts.cookies = parts.cookies === undefined ? pair : `${parts.cookies}; ${pair}`;
      return;
    }
    case 'form':
      parts.form ??= new URLSearchParams();
      for (const v of scratch) parts.form.append(name, v);
      return;
    default:
  }
}

/** Calls a contract method: the request its plan and arguments describe (a bad argument rejects, naming it). */
function invoke(
  state: ClientState,
  plan: MethodPlan,
  args: readonly unknown[],
  options: CallOptions | undefined,
  raw: boolean,
): Promise<unknown> {
  let input: CallInput;
  try {
    input = request(state, plan, args, options);
  } catch (e) {
    return Promise.reject(e as Error);
  }
  if (raw) return call(state, input, (r) => r);
  const types = plan.entityTypes;
  return call(state, input, (r) => entityResult(r, types?.get(r.status) ?? plan.returnType, plan.chains));
}

/** The request a contract method's plan and arguments describe. */
function request(state: ClientState, plan: MethodPlan, args: readonly unknown[], options: CallOptions | undefined): CallInput {
  const headers = state.headers();
  if (plan.accept !== undefined) headers.accept = plan.accept;
  const parts: Parts = {
    values: undefined,
    query: '',
    headers,
    cookies: undefined,
    form: undefined,
    entity: undefined,
    entityType: undefined,
    signal: undefined,
  };
  const n = Math.min(args.length, plan.args.length);
  for (let i = 0; i < n; i++) apply(plan.args[i]!, args[i], parts);
  if (options?.headers !== undefined) for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = v;
  if (options?.range !== undefined) setRangeHeaders(headers, options.range);
  if (parts.cookies !== undefined) headers.cookie = parts.cookies;
  let entity = parts.entity;
  let entityType = parts.entityType;
  if (parts.form !== undefined) {
    entity = parts.form;
    entityType = URLSearchParams;
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (entity !== undefined && entity !== null && plan.contentType !== undefined) headers['content-type'] ??= plan.contentType;
  let uri: string;
  try {
    uri = plan.template === undefined ? plan.uri : plan.template.buildFromMap(parts.values ?? {});
  } catch (e) {
    throw new TypeError(`${typeName(plan.info.resourceClass)}.${plan.name}: ${(e as Error).message}`);
  }
  if (parts.query !== '') uri += `${uri.includes('?') ? '&' : '?'}${parts.query}`;
  return {
    method: plan.httpMethod,
    uri,
    headers,
    entity,
    entityType,
    resourceInfo: plan.info,
    chains: plan.chains,
    options,
    signal: parts.signal,
  };
}

/** An object with one function per planned method. */
export function proxyOf(
  state: ClientState,
  plans: ReadonlyMap<string, MethodPlan>,
  options: CallOptions | undefined,
  raw: boolean,
): object {
  const proxy: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, plan] of plans) {
    proxy[name] = (...args: unknown[]) => invoke(state, plan, args, options, raw);
  }
  return Object.freeze(proxy);
}

/**
 * Hooks through which features outside core plug into the lifecycle without core importing them
 * (server-sent events use the first three): `@Context()` types, a context value that answers the
 * request itself when the method returns nothing, work to do when the application starts closing,
 * and the readers an entity type needs (multipart), checked once by `build()`.
 * Nothing here is consulted at request time on a route that does not use such a feature.
 */
import type { ResourceInfo } from '../context/resource-info.js';
import type { TypeToken } from '../context/contracts.js';
import type { Step } from '../util/thenable.js';
import type { Response } from '../http/response.js';
import type { Exchange } from './exchange.js';
import type { ArgResolver } from './model.js';
import type { Runtime } from './runtime.js';

/**
 * Makes the per-request resolver of an `@Context()` parameter of one type, once per resource
 * method at start-up (after every `DynamicFeature` configured it, so `info` can carry its
 * configuration). Throws to refuse the method, with a message naming it and the fix.
 */
export type ContextFactory = (info: ResourceInfo, where: string) => ArgResolver;

/** What `build()` needs to know about an injectable `@Context()` type besides its factory. */
export interface ContextTypeOptions {
  /**
   * The value answers the request itself (an event sink whose stream is the response, see
   * {@link answerVoidWith}): a method taking it returns nothing, and `build()` warns when it
   * declares a return value (`PIPELINE_SINK_RESULT_IGNORED`).
   */
  readonly answersRequest?: boolean;
}

const contextFactories = new Map<TypeToken, ContextFactory>();
const contextOptions = new Map<TypeToken, ContextTypeOptions>();

/**
 * Adds an injectable `@Context()` type (features call this when their module loads); the
 * built-in types keep their own fast paths in core/build/compile-params.ts.
 * @example registerContextType(SseEventSink, (info) => (ex) => new SseEventSink(ex, optionsFor(info)), { answersRequest: true });
 */
export function registerContextType(type: TypeToken, factory: ContextFactory, options: ContextTypeOptions = {}): void {
  contextFactories.set(type, factory);
  contextOptions.set(type, options);
}

/** The factory registered for `type`, if any. */
export function contextFactory(type: TypeToken | undefined): ContextFactory | undefined {
  return type === undefined ? undefined : contextFactories.get(type);
}

/** The options `type` was registered with, if it was. */
export function contextTypeOptions(type: TypeToken | undefined): ContextTypeOptions | undefined {
  return type === undefined ? undefined : contextOptions.get(type);
}

/** Every type added by {@link registerContextType} (for the start-up message listing the injectable types). */
export function registeredContextTypes(): TypeToken[] {
  return [...contextFactories.keys()];
}

/**
 * What a kind of entity needs registered to be read: a module outside core (multipart) declares
 * it when it loads, so `build()` can refuse a method nothing could read (instead of a 415 to a
 * correct client) without core importing that module.
 */
export interface ReaderRequirement {
  /** The media type the entity is read as, e.g. `multipart/form-data`. */
  readonly mediaType: string;
  /** Entity parameters of these types (or subclasses) need a reader of them as {@link mediaType}. */
  readonly entityTypes: readonly TypeToken[];
  /**
   * A form (`@FormParam`s) needs a reader of it as {@link mediaType} when a field is a form part
   * (a type marked `FORM_PART_TYPE`, e.g. `EntityPart`), or when the method `@Consumes` that type.
   */
  readonly forms: boolean;
  /** The fix, for the message, e.g. "register new MultipartFeature() (from '@jaxrs-node/pipeline/multipart') in providers". */
  readonly fix: string;
}

/**
 * A binding decorator that only a known provider acts on (`@RolesAllowed` and `@DenyAll`, enforced
 * by `RolesAllowedFeature`): a method carrying it while nothing acts on it would be served to
 * everyone, so `build()` refuses it. A module outside core declares it when it loads.
 */
export interface BindingRequirement {
  /** The binding decorator (as `NameBinding` made it). */
  readonly binding: object;
  /** The provider class (a `DynamicFeature`, typically) that acts on it; a provider bound to {@link binding} counts too. */
  readonly actedOnBy: Function;
  /** The fix, for the message, e.g. "register new RolesAllowedFeature() in providers". */
  readonly fix: string;
  /**
   * `'error'` (default) refuses the application; `'warning'` reports it (`PIPELINE_BINDING_WITHOUT_PROVIDER`),
   * for a binding whose provider may be left out on purpose (rate limits turned off).
   */
  readonly severity?: 'error' | 'warning';
}

const bindingRequirements: BindingRequirement[] = [];

/** Declares that {@link BindingRequirement.binding} needs a provider acting on it; checked by `build()`. */
export function requireBindingProvider(requirement: BindingRequirement): void {
  bindingRequirements.push(requirement);
}

/** Every {@link requireBindingProvider} declaration so far. */
export function requiredBindingProviders(): readonly BindingRequirement[] {
  return bindingRequirements;
}

const readerRequirements: ReaderRequirement[] = [];

/**
 * Declares what a kind of entity needs (see {@link ReaderRequirement}); checked once per method by
 * `build()` against the registered readers, whichever way they were registered.
 * @example requireReader({ mediaType: 'multipart/form-data', entityTypes: [MultipartBody], forms: true, fix: 'register MultipartFeature' });
 */
export function requireReader(requirement: ReaderRequirement): void {
  readerRequirements.push(requirement);
}

/** Every {@link requireReader} declaration so far. */
export function requiredReaders(): readonly ReaderRequirement[] {
  return readerRequirements;
}

/**
 * What a response media type needs registered to be written (multipart): a method that
 * `@Produces` one of {@link mediaTypes} is refused by `build()` when no registered writer writes
 * {@link probe} as that type, i.e. when the feature bringing the writer is missing altogether.
 */
export interface WriterRequirement {
  /** Essences, e.g. `multipart/form-data`. */
  readonly mediaTypes: readonly string[];
  /** A type the feature's writer writes as each of them (e.g. `Array` for a list of parts). */
  readonly probe: TypeToken;
  /** The fix, for the message. */
  readonly fix: string;
}

const writerRequirements: WriterRequirement[] = [];

/**
 * Declares what a response media type needs (see {@link WriterRequirement}); checked once per
 * method by `build()` against the registered writers.
 * @example requireWriter({ mediaTypes: ['multipart/mixed'], probe: Array, fix: 'register MultipartFeature' });
 */
export function requireWriter(requirement: WriterRequirement): void {
  writerRequirements.push(requirement);
}

/** Every {@link requireWriter} declaration so far. */
export function requiredWriters(): readonly WriterRequirement[] {
  return writerRequirements;
}

/** Per request (only those that took such a context value): how to answer when the method returns nothing. */
const voidAnswers = new WeakMap<Exchange, () => Step>();

/**
 * Lets a context value answer the request when its method returns `undefined` or `null` (instead
 * of a 204), e.g. an event sink whose stream is the response. The value may also start the
 * response itself earlier, with {@link respondWith}: the method's result is then ignored (core/stages/lifecycle.ts).
 * @example answerVoidWith(ex, () => sink.start());
 */
export function answerVoidWith(ex: Exchange, answer: () => Step): void {
  voidAnswers.set(ex, answer);
}

/** The answer registered by {@link answerVoidWith} for this request, if any. */
export function voidAnswer(ex: Exchange): (() => Step) | undefined {
  return voidAnswers.get(ex);
}

type Responder = (ex: Exchange, response: Response) => Step;
let responder: Responder | undefined;

/**
 * Called once by the response half of the lifecycle (core/stages/respond.ts) when it loads: a context value
 * that starts the response itself (an event sink) reaches it through {@link respondWith}, without
 * importing a request-time stage.
 */
export function provideResponder(respond: Responder): void {
  responder = respond;
}

/**
 * Sends `response` for `ex` the way every response goes: response filters, writer interceptors,
 * the writer (respond.ts `respond`).
 * @example return respondWith(this.ex, this.response);
 */
export function respondWith(ex: Exchange, response: Response): Step {
  if (responder === undefined)
    throw new Error('respondWith: the response stage is not loaded (the request was not taken by an Application)');
  return responder(ex, response);
}

const closingHooks = new WeakMap<Runtime, Set<() => void>>();

/**
 * Runs `hook` once when the application starts closing (`Application.close()`), e.g. to end
 * long-lived responses so the close does not wait for its deadline. Returns the function that
 * removes it (call it when the work it would end is over).
 * @example const off = whenClosing(ex.rt, () => stream.end());
 */
export function whenClosing(rt: Runtime, hook: () => void): () => void {
  let hooks = closingHooks.get(rt);
  if (hooks === undefined) closingHooks.set(rt, (hooks = new Set()));
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}

/**
 * Whether the application that took `request` is closing (`Application.close()` was called, its
 * shutdown delay included); false for a context the application did not make (a test's own).
 */
export function applicationClosing(request: object): boolean {
  return (request as Partial<Exchange>).rt?.state.stopping === true;
}

/** Runs (and forgets) every {@link whenClosing} hook of `rt`; a failing hook is logged, the others still run. */
export function runClosingHooks(rt: Runtime): void {
  const hooks = closingHooks.get(rt);
  if (hooks === undefined) return;
  closingHooks.delete(rt);
  for (const hook of hooks) {
    try {
      hook();
    } catch (e) {
      rt.logError(e, undefined);
    }
  }
}

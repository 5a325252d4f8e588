/**
 * Hooks through which features outside core plug into the lifecycle without core importing them
 * (server-sent events use all three): `@Context()` types, a context value that answers the request
 * itself when the method returns nothing, and work to do when the application starts closing.
 * Nothing here is consulted on a route that does not use such a feature.
 */
import type { ResourceInfo } from '../context/resource-info.js';
import type { TypeToken } from '../context/providers.js';
import type { Step } from '../util/thenable.js';
import type { Exchange } from './exchange.js';
import type { ArgResolver } from './model.js';
import type { Runtime } from './runtime.js';

/**
 * Makes the per-request resolver of an `@Context()` parameter of one type, once per resource
 * method at start-up (after every `DynamicFeature` configured it, so `info` can carry its
 * configuration). Throws to refuse the method, with a message naming it and the fix.
 */
export type ContextFactory = (info: ResourceInfo, where: string) => ArgResolver;

const contextFactories = new Map<TypeToken, ContextFactory>();

/**
 * Adds an injectable `@Context()` type (features call this when their module loads); the
 * built-in types keep their own fast paths in params.ts.
 * @example registerContextType(SseEventSink, (info) => (ex) => new SseEventSink(ex, optionsFor(info)));
 */
export function registerContextType(type: TypeToken, factory: ContextFactory): void {
  contextFactories.set(type, factory);
}

/** The factory registered for `type`, if any. */
export function contextFactory(type: TypeToken | undefined): ContextFactory | undefined {
  return type === undefined ? undefined : contextFactories.get(type);
}

/** Per request (only those that took such a context value): how to answer when the method returns nothing. */
const voidAnswers = new WeakMap<Exchange, () => Step>();

/**
 * Lets a context value answer the request when its method returns `undefined` or `null` (instead
 * of a 204), e.g. an event sink whose stream is the response. The value may also start the
 * response itself earlier, with `respond()`: the method's result is then ignored (lifecycle.ts).
 * @example answerVoidWith(ex, () => sink.start());
 */
export function answerVoidWith(ex: Exchange, answer: () => Step): void {
  voidAnswers.set(ex, answer);
}

/** The answer registered by {@link answerVoidWith} for this request, if any. */
export function voidAnswer(ex: Exchange): (() => Step) | undefined {
  return voidAnswers.get(ex);
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

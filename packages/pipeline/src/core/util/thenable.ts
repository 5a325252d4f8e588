/**
 * Sync-first execution: a stage returns `undefined` when it finished synchronously and a promise
 * only when something awaited. Awaiting a sync result costs 0.15-0.35 us per hook
 * (measured in packages/bench), so callers check with this before chaining.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** A stage result: done now, or later. */
export type Step = void | Promise<void>;

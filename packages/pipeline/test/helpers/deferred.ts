/**
 * A promise with its resolver outside: a test holds a handler (or any other step) until it opens
 * the gate itself, so ordering comes from events the test controls, never from sleeps.
 */

/** A promise and the function that resolves it. */
export interface Deferred<T = void> {
  /** Settles once {@link Deferred.resolve} is called. */
  promise: Promise<T>;
  /** Resolves {@link Deferred.promise} with `value` (omitted for `Deferred<void>`). */
  resolve(value: T): void;
}

/** A new, unresolved {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

import type { NameBindingDecorator } from '../context/resource-info.js';
import type { Constructor, TypeToken } from '../context/contracts.js';

/** Options that travel with one registration (explicit values beat decorators, jersey#2912). */
export interface RegistrationOptions {
  priority?: number;
  /** For exception mappers registered without `@MapsError`. */
  errorType?: Constructor;
  /** For context resolvers registered without `@ResolvesContext`. */
  contextType?: TypeToken;
}

/** A provider instance with everything needed to place it in chains (start-up only). */
export interface ProviderEntry {
  readonly instance: object;
  readonly ctor: Constructor;
  readonly priority: number;
  readonly bindings: readonly NameBindingDecorator[];
  readonly preMatching: boolean;
  /** 0 global, 1 name-bound, 2 dynamic: the tie-break after priority, then `order`. */
  readonly rank: number;
  readonly order: number;
  readonly errorType: Constructor | undefined;
  readonly contextType: TypeToken | undefined;
}

/** Does `o` have a method named `m`? How a provider's kinds are recognised (docs/providers.md). */
export const has = (o: object, m: string): boolean => typeof (o as Record<string, unknown>)[m] === 'function';

/** Ascending priority; ties: global, name-bound, dynamic, then registration order. Never subtract (jersey#3099). */
export function ascending(a: ProviderEntry, b: ProviderEntry): number {
  if (a.priority < b.priority) return -1;
  if (a.priority > b.priority) return 1;
  if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0;
}

/** Descending priority (response filters); ties as in {@link ascending}. */
export function descending(a: ProviderEntry, b: ProviderEntry): number {
  if (a.priority > b.priority) return -1;
  if (a.priority < b.priority) return 1;
  if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0;
}

/** The instances of `list` in `order` (sorts `list` in place: callers pass fresh arrays). */
export function instances<T>(list: ProviderEntry[], order: (a: ProviderEntry, b: ProviderEntry) => number = ascending): T[] {
  return list.sort(order).map((p) => p.instance as T);
}

/** The entries of `list` whose instance has `method` (a fresh array). */
export function withMethod(list: readonly ProviderEntry[], method: string): ProviderEntry[] {
  return list.filter((p) => has(p.instance, method));
}

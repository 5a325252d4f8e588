import type { ContainerRequestFilter } from '../context/contracts.js';
import type { Exchange } from '../internal/exchange.js';
import { isThenable, type Step } from '../util/thenable.js';
import { nameOf } from '../util/type-name.js';

/**
 * Runs request filters in order from `i`. Stops after a filter that called `abortWith`
 * (an abort is not an exception: the filter returns normally, Processing rules §2).
 */
export function runRequestFilters(ex: Exchange, filters: readonly ContainerRequestFilter[], i: number): Step {
  for (; i < filters.length; i++) {
    const filter = filters[i]!;
    if (ex.trace !== undefined) ex.trace.push(`request-filter:${nameOf(filter)}`);
    const r = filter.filterRequest(ex);
    if (r !== undefined && isThenable(r)) {
      const next = i + 1;
      return Promise.resolve(r).then(() => (ex.abortResponse === undefined ? runRequestFilters(ex, filters, next) : undefined));
    }
    if (ex.abortResponse !== undefined) return;
  }
}

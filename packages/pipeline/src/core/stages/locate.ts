/**
 * Sub-resource locators at request time (Jakarta REST 3.1 §3.4.1, §3.7.2 step 2): the locator
 * runs while the request is matched, with its parameters converted as a method's are; matching
 * goes on in the object it returns (or in the class it returns, resolved from the container),
 * against that class's methods and locators with the rest of the path. The chosen method runs on
 * that object.
 */
import { BadRequestError, NotFoundError } from '../http/errors.js';
import { diFailure } from '../model/model-problems.js';
import type { Response } from '../http/response.js';
import type { OpenMatch } from '../routing/router.js';
import { isThenable } from '../util/thenable.js';
import type { Exchange } from '../internal/exchange.js';
import { select } from './match.js';
import type { Locator, PathEntry } from '../internal/model.js';
import { resolveArguments } from './resolve-args.js';

/** Nested locators a request may pass through (a deeper one is a 404). */
const MAX_DEPTH = 16;
/** Classes a locator may return; past it their models are built per request instead of kept. */
const MAX_MODELS = 256;

/** The object a request's sub-resource method runs on, beside the request (no field on the hot path). */
const located = new WeakMap<Exchange, object>();

/** The sub-resource object the request was located to (for a `located` route). */
export function locatedInstance(ex: Exchange): object {
  return located.get(ex)!;
}

/** Runs `locator` and matches `rest` in what it returns; a promise when the locator is async. */
export function locate(ex: Exchange, locator: Locator, rest: string, depth: number): Response | undefined | Promise<Response | undefined> {
  const args = resolveArguments(ex, locator.args, locator.validate);
  if (locator.validate !== undefined) locator.validate(args);
  const self = locator.instance ?? (locator.located ? locatedInstance(ex) : resolve(ex, locator.resourceClass, 'a resource'));
  if (ex.trace !== undefined) ex.trace.push(`locator:${locator.info.resourceClass.name}.${locator.info.methodName}`);
  const result = locator.fn.apply(self, args);
  if (isThenable(result)) return Promise.resolve(result).then((r) => into(ex, locator, r, rest, depth));
  return into(ex, locator, result, rest, depth);
}

function into(
  ex: Exchange,
  locator: Locator,
  result: unknown,
  rest: string,
  depth: number,
): Response | undefined | Promise<Response | undefined> {
  if (result === undefined || result === null) throw noMatch(ex);
  const target = typeof result === 'function' ? resolve(ex, result, 'a sub-resource') : result;
  if (typeof target !== 'object') {
    const { resourceClass, methodName } = locator.info;
    throw new TypeError(
      `${resourceClass.name}.${methodName} returned a ${typeof target}: a sub-resource locator returns an object or a class`,
    );
  }
  const cls = (target as { constructor: Function }).constructor;
  let model = locator.models.get(cls);
  if (model === undefined) {
    model = locator.model(cls);
    if (locator.models.size < MAX_MODELS) locator.models.set(cls, model);
  }
  let found;
  try {
    found = model.router.match(rest);
  } catch (e) {
    if (e instanceof URIError) throw new BadRequestError('Malformed percent-encoding in the request path');
    throw e;
  }
  if (found === undefined) throw noMatch(ex);
  if (found.names.length > 0) {
    ex.pathNames = ex.pathNames.concat(found.names);
    ex.pathValues = ex.pathValues.concat(found.args);
  }
  located.set(ex, target);
  const entry = found.values[0]!;
  if (entry.locator !== undefined) {
    if (depth + 1 >= MAX_DEPTH) throw noMatch(ex);
    return locate(ex, entry.locator, (found as OpenMatch<PathEntry>).rest, depth + 1);
  }
  return select(ex, entry);
}

function resolve(ex: Exchange, cls: Function, role: string): object {
  try {
    return ex.rt.container.resolve(cls as new () => object);
  } catch (e) {
    throw new Error(diFailure(cls, role, e), { cause: e });
  }
}

function noMatch(ex: Exchange): NotFoundError {
  return new NotFoundError(`No resource matches ${ex.method} ${ex.path}`, { code: 'PIPE_NO_MATCH' });
}

/**
 * `UriBuilder.fromResource` / `fromMethod` / `path(Class, method)` read `@Path` from decorator
 * metadata, which lives in this layer: loading this module installs that lookup into the builder
 * (src/core/context/uri-builder.ts). The public entry point exports `UriBuilder` from here, so the
 * lookup is always in place where the class can be reached.
 */
import type { Constructor } from '../context/contracts.js';
import { setResourcePathLookup, UriBuilder } from '../context/uri-builder.js';
import { effectiveResource } from './metadata.js';
import { typeName } from '../util/type-name.js';

/**
 * The `@Path` of `resource` (no `method`) or of its method `method`, as Jakarta REST 3.1 §5.3.2
 * `UriBuilder.path(Class)` / `path(Class, String)` read them: inherited ones included (§3.6).
 */
function lookupPath(resource: Constructor, method: string | undefined, caller: string): string {
  const eff = effectiveResource(resource);
  const name = typeName(resource);
  if (method === undefined) {
    if (eff?.path === undefined) {
      throw new TypeError(`UriBuilder.${caller}: ${name} has no class-level @Path; decorate it with @Path('/...') or use path('/...')`);
    }
    return eff.path;
  }
  const m = eff?.methods.get(method);
  if (m === undefined) {
    throw new TypeError(
      `UriBuilder.${caller}: ${name} has no resource method '${method}' (a method with @GET, @POST... or @Path, declared or inherited)`,
    );
  }
  if (m.meta.path === undefined) {
    throw new TypeError(
      `UriBuilder.${caller}: ${name}.${method} has no @Path of its own: it answers at the class's path, so leave out the path(Class, method) call`,
    );
  }
  return m.meta.path;
}

setResourcePathLookup(lookupPath);

export { UriBuilder };

import type { Constructor } from './contracts.js';
import { SERVER_ONLY, type ServerOnly } from './server-only.js';

/**
 * A binding decorator created by `NameBinding`. Put it on a provider class to bind the
 * provider; put it on resource classes or methods (or the application) to apply the provider there.
 */
export interface NameBindingDecorator<A extends unknown[] = unknown[]> {
  (...args: A): ClassDecorator & MethodDecorator;
  readonly bindingName: string;
}

/**
 * What the pipeline knows about a matched resource method (JAX-RS `ResourceInfo`), built once at
 * start-up and shared by every request to that method.
 */
export class ResourceInfo implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  constructor(
    readonly resourceClass: Constructor,
    readonly methodName: string,
    readonly httpMethod: string,
    /**
     * Full path template (class and method `@Path`), e.g. `/users/{id}`: relative to the
     * application's base path (`ApplicationOptions.basePath`), which it never includes.
     */
    readonly path: string,
    /** Binding decorators found on the method and its class, with their arguments (method wins). */
    readonly bindings: ReadonlyMap<NameBindingDecorator, readonly unknown[]>,
  ) {}

  /** Arguments of a binding decorator on this method or its class, e.g. `['ADMIN']` for `@RolesAllowed('ADMIN')`. */
  getBinding<A extends unknown[]>(binding: NameBindingDecorator<A>): A | undefined {
    return this.bindings.get(binding as NameBindingDecorator) as A | undefined;
  }

  hasBinding(binding: NameBindingDecorator<never>): boolean {
    return this.bindings.has(binding as unknown as NameBindingDecorator);
  }
}

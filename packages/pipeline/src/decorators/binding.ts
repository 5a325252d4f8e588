import { classMeta, methodMeta } from '../core/metadata.js';

/**
 * A binding decorator created by {@link NameBinding}. Put it on a provider class to bind the
 * provider; put it on resource classes or methods (or the application) to apply the provider there.
 */
export interface NameBindingDecorator<A extends unknown[] = unknown[]> {
  (...args: A): ClassDecorator & MethodDecorator;
  readonly bindingName: string;
}

/**
 * Declares a name-binding decorator (JAX-RS `@NameBinding`). Arguments given at the use site are
 * readable by providers through `resourceInfo.getBinding(decorator)` (jakartaee/rest#463).
 * @example
 * export const Logged = NameBinding('Logged');
 * export const RolesAllowed = NameBinding<string[]>('RolesAllowed');
 * \@Logged() class AuditFilter implements ContainerRequestFilter { ... }
 * \@RolesAllowed('ADMIN') \@GET() list() { ... }
 */
export function NameBinding<A extends unknown[] = []>(name: string): NameBindingDecorator<A> {
  const decorator = ((...args: A) => {
    return (target: object, propertyKey?: string | symbol) => {
      const key = decorator as unknown as NameBindingDecorator;
      if (propertyKey === undefined) classMeta(target).bindings.set(key, args);
      else methodMeta((target as { constructor: object }).constructor, String(propertyKey)).bindings.set(key, args);
    };
  }) as NameBindingDecorator<A>;
  Object.defineProperty(decorator, 'bindingName', { value: name });
  return decorator;
}

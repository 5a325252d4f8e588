import type { NameBindingDecorator } from '../core/context/resource-info.js';
import { classMeta, methodMeta } from '../core/model/metadata.js';

export type { NameBindingDecorator };

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

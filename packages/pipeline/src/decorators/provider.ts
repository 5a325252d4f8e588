import { classMeta, markDiscovered } from '../core/model/metadata.js';
import type { Constructor, TypeToken } from '../core/context/contracts.js';

/** Marks a class as a provider, discoverable with `new Application({ discoverProviders: true })`. */
export function Provider(): ClassDecorator {
  return (target) => {
    classMeta(target).isProvider = true;
    markDiscovered(target as unknown as Constructor);
  };
}

/** Priority of a provider (lower runs first; response filters run highest first). */
export function Priority(value: number): ClassDecorator {
  if (!Number.isFinite(value)) throw new TypeError(`@Priority needs a finite number, got ${value}`);
  return (target) => {
    classMeta(target).priority = value;
  };
}

/** Makes a request filter run before matching; it may change method, URI and headers there. */
export function PreMatching(): ClassDecorator {
  return (target) => {
    classMeta(target).preMatching = true;
  };
}

/** The error type an `ExceptionMapper` handles (its subclasses too, nearest type wins). */
export function MapsError(errorType: Constructor): ClassDecorator {
  return (target) => {
    classMeta(target).errorType = errorType;
  };
}

/** The configuration type a `ContextResolver` supplies, e.g. `JsonOptions`. */
export function ResolvesContext(type: TypeToken): ClassDecorator {
  return (target) => {
    classMeta(target).contextType = type;
  };
}

import type { ParamMeta } from './metadata.js';

/**
 * Parameter decorators used on fields (Jakarta REST 3.1 §3.2, "Fields and Bean Properties"):
 * `@QueryParam('page') page!: number` in a class passed with `@BeanParam()`. Kept apart from the
 * method registry of metadata.ts: decorators write once at class definition, the build reads once.
 */

// Keyed by constructor; the map keeps the fields' declaration order.
const fieldStore = new WeakMap<object, Map<string, ParamMeta>>();

/** The metadata of one field of a class (merged across the decorators on that field). */
export function fieldParamMeta(ctor: object, key: string): ParamMeta {
  let fields = fieldStore.get(ctor);
  if (fields === undefined) {
    fields = new Map();
    fieldStore.set(ctor, fields);
  }
  let p = fields.get(key);
  if (p === undefined) {
    p = {};
    fields.set(key, p);
  }
  return p;
}

/** One decorated field of a bean class, with the class that declares it. */
export interface BeanFieldMeta {
  readonly key: string;
  readonly meta: ParamMeta;
  /** The class (the bean class or one of its superclasses) whose prototype carries `design:type`. */
  readonly owner: Function;
}

/**
 * The decorated fields of `cls` and its superclasses, base classes first; a field a subclass
 * decorates again keeps its place and takes the subclass's decorators (wholesale, as methods do).
 */
export function beanFields(cls: Function): BeanFieldMeta[] {
  const chain: Function[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  const merged = new Map<string, BeanFieldMeta>();
  for (const c of chain) {
    for (const [key, meta] of fieldStore.get(c) ?? []) merged.set(key, { key, meta, owner: c });
  }
  return [...merged.values()];
}

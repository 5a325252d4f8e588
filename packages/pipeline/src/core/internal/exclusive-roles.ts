/**
 * Roles only one provider of an application may take (the response's content coding, say): a
 * provider class declares its role once, at load, and `build()` refuses two providers taking the
 * same role (`PIPELINE_PROVIDER_CONFLICT`, docs/errors.md) instead of letting both run on every
 * request. A subclass takes its parent's role (`GzipWriterInterceptor` is a
 * `ContentEncodingWriterInterceptor`).
 */

/** What a role is, for the start-up message. */
export interface ExclusiveRole {
  /** Providers of one role conflict; different roles (a request and a response direction) do not. */
  readonly key: string;
  /** What the role does, and what goes wrong when two providers take it ("both would code..."). */
  readonly what: string;
  /** How to keep only one. */
  readonly fix: string;
}

const roles = new WeakMap<Function, ExclusiveRole>();

/** Declares that instances of `cls` (and of its subclasses) take `role`. */
export function declareExclusiveRole(cls: Function, role: ExclusiveRole): void {
  roles.set(cls, role);
}

/** The role `instance`'s class (or the nearest ancestor class) declared, if any. */
export function exclusiveRoleOf(instance: object): ExclusiveRole | undefined {
  for (let c: unknown = instance.constructor; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const role = roles.get(c);
    if (role !== undefined) return role;
  }
  return undefined;
}

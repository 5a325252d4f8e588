/**
 * Stored user -> response body. The User shape is EXACTLY the member list of `docs/api.md` rule 3, because the
 * schema it serves sets `additionalProperties: false`: internal fields (`kind`, `name`) never
 * leak, optional fields are omitted rather than `null`, and key order is fixed so bodies are
 * byte-stable (and a compiled serializer can rely on one shape).
 */
import type { StoredUser } from './model.js';

/** A user as sent to clients (`docs/api.md` rule 3). */
export interface UserRepresentation {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  age?: number;
  fullName: string;
  status: string;
  roles: string[];
  createdAt: string;
  updatedAt: string;
  birthDate?: string;
}

/** The variant user resource (`/api/users/create`): id, name, email. */
export interface VariantUserRepresentation {
  id: number;
  name: string;
  email: string;
}

/** Whatever `GET /api/users/<id>` may answer. */
export type AnyUserRepresentation = UserRepresentation | VariantUserRepresentation;

/** fullName is firstName, one space, lastName (`docs/api.md` rule 8). */
export function fullNameOf(user: Pick<StoredUser, 'firstName' | 'lastName'>): string {
  return user.firstName + ' ' + user.lastName;
}

/**
 * The User shape, keys in the order of `docs/api.md` rule 3; `age` and `birthDate` omitted when absent, never null.
 * `roles` is copied so a caller mutating the body cannot reach the stored record.
 *
 * @example toUserRepresentation(stored).fullName // 'John Doe'
 */
export function toUserRepresentation(user: StoredUser): UserRepresentation {
  // Built in that order with conditional members (not `delete`, which would push V8 into a
  // slow dictionary-mode object on the hot GET path).
  const out = { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName } as UserRepresentation;
  if (user.age !== undefined) out.age = user.age;
  out.fullName = fullNameOf(user);
  out.status = user.status;
  out.roles = [...user.roles];
  out.createdAt = user.createdAt;
  out.updatedAt = user.updatedAt;
  if (user.birthDate !== undefined) out.birthDate = user.birthDate;
  return out;
}

/** The variant shape `{ id, name, email }`; a regular user's name is its full name. */
export function toVariantRepresentation(user: StoredUser): VariantUserRepresentation {
  return { id: user.id, name: user.name ?? fullNameOf(user), email: user.email };
}

/** True for records created through the variant resource. */
export function isVariant(user: StoredUser): boolean {
  return user.kind === 'variant';
}

/** The representation a record is served as: variant shape for variant records, else User. */
export function toRepresentation(user: StoredUser): AnyUserRepresentation {
  return isVariant(user) ? toVariantRepresentation(user) : toUserRepresentation(user);
}

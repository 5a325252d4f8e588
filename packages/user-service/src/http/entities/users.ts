/**
 * The user request bodies (`docs/api.md` rules 3-7 and the variant resource, rule 16) as classes: the pipeline checks
 * their decorators in its VALIDATION slot before the resource method runs, and the OpenAPI
 * document's request schemas are built from them. The domain keeps validating what it is given
 * (jobs and tests call it without HTTP) with the same rules and messages; test/unit/entities
 * pins that both agree.
 *
 * Fields that are not declared (server-owned `id`, `roles`, `createdAt`..., or unknown ones) are
 * neither checked nor used: the domain reads the declared fields only.
 */
import { AGE_MAX, AGE_MIN, FIRST_NAME_MIN, NAME_MAX, VARIANT_NAME_MAX } from '../../domain/users/validation.js';
import { EmailAddress, IntegerBetween, Name, NotRemoved, Required } from './constraints.js';

/**
 * A user as a client writes it (`POST /api/users`, `PUT /api/users/{id}`): `age` absent or
 * `null` means no age.
 * @example
 * const body: UserInput = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36 };
 */
export class UserInput {
  @Required() @EmailAddress() email!: string;
  @Required() @Name(FIRST_NAME_MIN, NAME_MAX) firstName!: string;
  @Required() @Name(1, NAME_MAX) lastName!: string;
  @IntegerBetween(AGE_MIN, AGE_MAX) age?: number | null;
}

/**
 * An RFC 7396 merge patch of a user (`PATCH /api/users/{id}`): every member is optional, a
 * present one follows {@link UserInput}'s rule, and `null` removes it, which only `age` may be.
 * The merge itself (over the stored user) stays in the domain.
 * @example
 * const patch: UserPatch = { lastName: 'Byron', age: null };
 */
export class UserPatch {
  @NotRemoved() @EmailAddress() email?: string;
  @NotRemoved() @Name(FIRST_NAME_MIN, NAME_MAX) firstName?: string;
  @NotRemoved() @Name(1, NAME_MAX) lastName?: string;
  @IntegerBetween(AGE_MIN, AGE_MAX) age?: number | null;
}

/**
 * The variant resource's body (`POST /api/users/create`): `name` holds "first last".
 * @example
 * const body: VariantUserInput = { name: 'Vera Variant', email: 'vera@example.com' };
 */
export class VariantUserInput {
  @Required() @Name(1, VARIANT_NAME_MAX) name!: string;
  @Required() @EmailAddress() email!: string;
}

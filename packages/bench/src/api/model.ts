/**
 * The write-path workloads' shared model (issue 27): what every API peer (`api/bare.ts`,
 * `api/fastify.ts`, `api/nest.ts` on Fastify and Express, `api/pipeline.ts`) answers, so the
 * tables compare frameworks doing the same work. `api/check.ts` proves they give the same answers.
 *
 * Routes, identical on every peer:
 * - `POST /api/users`: the validated create. Body `{ email, firstName, lastName, age }`; checks:
 *   email well-formed, first name 2-50 characters, last name 1-50 and not blank, age an integer
 *   18-100 (a string such as `"30"` is refused, not coerced), all four required. 201 with the
 *   six-field {@link CreatedUser} and `Location: http://<host>/api/users/<id>`; otherwise 400
 *   listing every violation (`errors: [{ field, message }]`, not only the first).
 * - `POST /api/users/unchecked`: the same create without any validation (the JSON POST workload).
 * - `GET /api/users`: a list of 50 users (built per request, then JSON).
 * - `GET /api/users/{id}`: one user with a strong `ETag` (RFC 9110 §8.8.3); answered 304 with the
 *   `ETag` and no body when `If-None-Match` matches it (RFC 9110 §13.1.2).
 */

/** The body of the validated create, as a client sends it. */
export interface UserInput {
  email: string;
  firstName: string;
  lastName: string;
  age: number;
}

/** The 201 body: the input plus the server-owned `id` and `version` (six fields). */
export interface CreatedUser {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  age: number;
  version: number;
}

/** The list workload's item and the conditional GET's entity. */
export interface ListedUser {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  age: number;
}

/** The request body of the create workloads (72 bytes). */
export const CREATE_BODY = '{"email":"ann@example.com","firstName":"Ann","lastName":"Lee","age":30}';

/** A body breaking all four checks (the 400 the answers check compares). */
export const INVALID_BODY = '{"email":"not-an-address","firstName":"A","lastName":"   ","age":"30"}';

/** Items in the list workload. */
export const LIST_SIZE = 50;

/** The version every stored user has: the conditional GET's tag is `"<id>-<version>"`. */
export const VERSION = 1;

/** The strong entity tag of user `id`, quoted (RFC 9110 §8.8.3). */
export function etagOf(id: number): string {
  return `"${id}-${VERSION}"`;
}

/** User `id` as the list and the conditional GET answer it. */
export function listedUser(id: number): ListedUser {
  return { id, email: `user${id}@example.com`, firstName: 'Ann', lastName: 'Lee', age: 30 };
}

/** The 50 users of the list workload, built per request as a resource method would. */
export function listUsers(): ListedUser[] {
  const out: ListedUser[] = [];
  for (let i = 1; i <= LIST_SIZE; i++) out.push(listedUser(i));
  return out;
}

/** Ids of created users: one counter per server process, so identical request sequences get identical ids. */
let nextId = 0;

/** The stored user for a valid input: the six-field answer of the create workloads. */
export function createUser(input: UserInput): CreatedUser {
  nextId += 1;
  return { id: nextId, email: input.email, firstName: input.firstName, lastName: input.lastName, age: input.age, version: VERSION };
}

/** `Location` of a created user: absolute, from the request's Host (Jakarta REST resolves a relative location against the base URI). */
export function locationOf(host: string | undefined, id: number): string {
  return host === undefined ? `/api/users/${id}` : `http://${host}/api/users/${id}`;
}

/** Bounds of the checks (the issue's numbers). */
export const FIRST_NAME = { min: 2, max: 50 } as const;
export const LAST_NAME = { min: 1, max: 50 } as const;
export const AGE = { min: 18, max: 100 } as const;

/**
 * Messages of the hand-written server's violations (the pipeline's wording). The answers check
 * compares a 400 by its status and the fields it lists, in order: messages are each library's own.
 */
export const MESSAGES = {
  required: 'is required',
  email: 'must be a well-formed email address',
  firstName: `size must be between ${FIRST_NAME.min} and ${FIRST_NAME.max}`,
  lastName: `size must be between ${LAST_NAME.min} and ${LAST_NAME.max}`,
  blank: 'must not be blank',
  string: 'must be a string',
  integer: 'must be an integer',
  age: `must be between ${AGE.min} and ${AGE.max}`,
} as const;

/** One violation in a 400 body: the field (`body.email`) and what is wrong. */
export interface Violation {
  field: string;
  message: string;
}

/**
 * The e-mail rule of the hand-written server: the WHATWG HTML "valid e-mail address" expression
 * with RFC 5321 §4.5.3.1's length caps, the rule of the pipeline's `@Email`. Fastify's `format: email`
 * and class-validator's `@IsEmail()` are their own (idiomatic) rules; they agree on the checked inputs.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Is `s` a well-formed e-mail address (see {@link EMAIL})? */
export function isEmail(s: string): boolean {
  const at = s.indexOf('@');
  return s.length <= 254 && at > 0 && at <= 64 && EMAIL.test(s);
}

/** The 400 body of the hand-written peers: every violation in declaration order, with `status` and `error` (the pipeline's default shape). */
export function violationBody(violations: readonly Violation[]): { status: 400; error: 'Bad Request'; errors: readonly Violation[] } {
  return { status: 400, error: 'Bad Request', errors: violations };
}

/**
 * Paging parameters for `GET /api/users?page=&size=&sort=` and the result envelope.
 *
 * Query strings are parsed strictly here (not with `Number()`/`parseInt`, which accept `1e3`,
 * `0x10`, ` 5`, `5abc`), and every bad parameter is reported at once as a 400 violation naming it.
 */
import type { Comparator } from './paging-select.js';
import { validationFailed, type StoredUser, type Violation } from '../users/model.js';

/** Fields a user page may be sorted by. */
export const USER_SORT_FIELDS = ['id', 'email', 'firstName', 'lastName', 'age', 'createdAt', 'updatedAt'] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];
/** The message of an invalid `sort` value. */
export const USER_SORT_MESSAGE = `must be '<field>[,asc|desc]' with field one of ${USER_SORT_FIELDS.join(', ')}`;
export type SortDirection = 'asc' | 'desc';

export interface SortSpec {
  field: UserSortField;
  direction: SortDirection;
}

/** Compile-time brand: only this module's validators produce a {@link PageRequest}. */
declare const VALIDATED: unique symbol;

/**
 * A validated, frozen page request, made only by {@link parsePageQuery} or
 * {@link normalizePageRequest}. The brand lets the HTTP layer validate once and hand the result to
 * the service, which then uses it as is instead of validating it again; a look-alike plain object
 * carries no brand at run time ({@link isPageRequest}) and is validated like any other input.
 */
export interface PageRequest {
  /** Zero-based page index. */
  readonly page: number;
  /** Items per page, 1..{@link MAX_PAGE_SIZE}. */
  readonly size: number;
  readonly sort: Readonly<SortSpec>;
  readonly [VALIDATED]: true;
}

/** Query parameters as they arrive (absent = default). */
export interface RawPageQuery {
  page?: string;
  size?: string;
  sort?: string;
}

/** Programmatic page request; absent members take the defaults. */
export interface PageRequestInput {
  page?: number;
  size?: number;
  sort?: string | SortSpec;
}

/** The paged result body. */
export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;
/** Java `int` range, as in the Spring/JAX-RS clients of this API; keeps page*size exact. */
export const MAX_PAGE_INDEX = 2_147_483_647;
export const DEFAULT_SORT: Readonly<SortSpec> = Object.freeze({ field: 'id', direction: 'asc' });

const DIGITS = /^[0-9]{1,10}$/;

/**
 * Every request this module validated. A WeakSet rather than a property: a look-alike object can
 * not forge membership, the request's shape (and `toEqual` on it) stays `{page, size, sort}`, and
 * the frozen request can not be changed into an invalid one after the check.
 */
const validated = new WeakSet<object>();

function validRequest(page: number, size: number, sort: SortSpec): PageRequest {
  const request = Object.freeze({ page, size, sort: Object.isFrozen(sort) ? sort : Object.freeze(sort) });
  validated.add(request);
  return request as PageRequest;
}

/** True for a request made by {@link parsePageQuery} or {@link normalizePageRequest}. */
export function isPageRequest(value: unknown): value is PageRequest {
  return typeof value === 'object' && value !== null && validated.has(value);
}

/** The number in `raw`, `fallback` when absent, `undefined` when invalid (already reported). */
function parseCount(name: string, raw: string | undefined, fallback: number, out: Violation[]): number | undefined {
  if (raw === undefined) return fallback;
  if (DIGITS.test(raw)) return Number(raw);
  out.push({ field: name, message: 'must be a non-negative integer' });
  return undefined;
}

function parseSort(raw: string, out: Violation[]): SortSpec | undefined {
  const parts = raw.split(',').map((part) => part.trim());
  const [field, direction = 'asc', extra] = parts;
  const lower = direction.toLowerCase();
  const fieldOk = (USER_SORT_FIELDS as readonly string[]).includes(field ?? '');
  if (!fieldOk || extra !== undefined || (lower !== 'asc' && lower !== 'desc')) {
    out.push({ field: 'sort', message: USER_SORT_MESSAGE });
    return undefined;
  }
  return { field: field as UserSortField, direction: lower as SortDirection };
}

/** Reports `page`/`size` outside their ranges; `undefined` means "already reported". */
function checkRanges(page: number | undefined, size: number | undefined, out: Violation[]): void {
  if (page !== undefined && !(Number.isSafeInteger(page) && page >= 0 && page <= MAX_PAGE_INDEX)) {
    out.push({ field: 'page', message: `must be an integer between 0 and ${MAX_PAGE_INDEX}` });
  }
  if (size !== undefined && !(Number.isSafeInteger(size) && size >= 1 && size <= MAX_PAGE_SIZE)) {
    out.push({ field: 'size', message: `must be an integer between 1 and ${MAX_PAGE_SIZE}` });
  }
}

/**
 * Validates a programmatic page request and fills defaults (page 0, size 20, sort `id,asc`).
 * A request that is already validated ({@link isPageRequest}) is returned as is, so callers such
 * as the service may pass either kind and the HTTP query is validated exactly once.
 * @throws BadRequestError listing every invalid parameter.
 */
export function normalizePageRequest(input: PageRequestInput | PageRequest): PageRequest {
  if (isPageRequest(input)) return input;
  const violations: Violation[] = [];
  const page = input.page ?? 0;
  const size = input.size ?? DEFAULT_PAGE_SIZE;
  checkRanges(page, size, violations);
  let sort: SortSpec | undefined = DEFAULT_SORT;
  if (typeof input.sort === 'string') sort = parseSort(input.sort, violations);
  else if (input.sort !== undefined) sort = parseSort(`${input.sort.field},${input.sort.direction}`, violations);
  if (violations.length > 0 || sort === undefined) throw validationFailed(violations);
  return validRequest(page, size, sort);
}

/**
 * Parses raw `page`, `size` and `sort` query strings. `sort` is `field` or `field,asc|desc`
 * (direction case-insensitive, default asc). An empty value is invalid, not "default".
 *
 * @example parsePageQuery({ page: '2', size: '10', sort: 'lastName,desc' })
 * @throws BadRequestError listing every invalid parameter.
 */
export function parsePageQuery(raw: RawPageQuery): PageRequest {
  const violations: Violation[] = [];
  const page = parseCount('page', raw.page, 0, violations);
  const size = parseCount('size', raw.size, DEFAULT_PAGE_SIZE, violations);
  checkRanges(page, size, violations);
  const sort = raw.sort === undefined ? DEFAULT_SORT : parseSort(raw.sort, violations);
  if (violations.length > 0 || page === undefined || size === undefined || sort === undefined) {
    throw validationFailed(violations);
  }
  return validRequest(page, size, sort);
}

/** Is `raw` a valid `sort` value (`field` or `field,asc|desc`, a sortable field)? */
export function isUserSort(raw: string): boolean {
  return parseSort(raw, []) !== undefined;
}

/** Wraps one page of content with its totals. */
export function toPage<T>(content: T[], request: Pick<PageRequest, 'page' | 'size'>, totalElements: number): Page<T> {
  return {
    content,
    page: request.page,
    size: request.size,
    totalElements,
    totalPages: Math.ceil(totalElements / request.size),
  };
}

/**
 * The order of a user page: the sort field (absent values, i.e. no `age`, always last, in both
 * directions), then id ascending so equal values never make pages overlap or skip. Strings
 * compare by UTF-16 code unit: deterministic and cheap at 10^6 comparisons, unlike localeCompare.
 * Timestamps have one fixed-width format, so string order is time order.
 */
export function userComparator(sort: SortSpec): Comparator<StoredUser> {
  const sign = sort.direction === 'asc' ? 1 : -1;
  if (sort.field === 'id') return (a, b) => sign * (a.id - b.id);
  const field = sort.field;
  return (a, b) => {
    const x = a[field];
    const y = b[field];
    if (x !== y) {
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return x < y ? -sign : sign;
    }
    return a.id - b.id;
  };
}

/**
 * The query parameters of `GET /api/users` and `GET /api/users/search` as parameter objects
 * (`@BeanParam`): converted and constrained by the pipeline, so a bad `page`, `size` or `sort`
 * is a 400 in the service's error body naming each of them, before the resource runs.
 */
import { defineConstraint, Int, Max, Min, QueryParam, Size } from '@jaxrs-node/pipeline';
import { isUserSort, MAX_PAGE_INDEX, MAX_PAGE_SIZE, USER_SORT_MESSAGE, type PageRequestInput } from '../../domain/query/paging.js';

/** `sort=<field>[,asc|desc]` with a field users can be sorted by. */
export const UserSort = defineConstraint<string>({ name: 'UserSort', message: USER_SORT_MESSAGE, check: isUserSort });

/** `GET /api/users?email=&page=&size=&sort=`: an optional email filter, and paging. */
export class UserListQuery {
  @QueryParam('email') email?: string;
  @QueryParam('page', { type: Int }) @Min(0) @Max(MAX_PAGE_INDEX) page?: number;
  @QueryParam('size', { type: Int }) @Min(1) @Max(MAX_PAGE_SIZE) size?: number;
  @QueryParam('sort') @UserSort() sort?: string;

  /** Any of `page`, `size`, `sort` given: the answer is a page, not the plain list. */
  get paged(): boolean {
    return this.page !== undefined || this.size !== undefined || this.sort !== undefined;
  }

  /** The page asked for (defaults filled in by the service). */
  get pageRequest(): PageRequestInput {
    return { page: this.page, size: this.size, sort: this.sort };
  }
}

/** `GET /api/users/search?email=`: a case-insensitive fragment of the email (none: every user). */
export class UserSearchQuery {
  @QueryParam('email') @Size({ max: 320 }) email: string = '';
}

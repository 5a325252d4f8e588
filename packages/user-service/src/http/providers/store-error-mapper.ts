import {
  InternalServerError,
  MapsError,
  Response,
  ServiceUnavailableError,
  WebApplicationError,
  type ContainerRequestContext,
  type ExceptionMapper,
} from '@jaxrs-node/pipeline';
import { RecordStoreError } from '../../storage/record-store.js';
import { serviceErrorEntity } from '../error-body.js';

/**
 * Storage failures as HTTP answers, in the service's error body (or its problem details, as Accept says):
 * - `ERR_STORE_FULL` (ENOSPC, EDQUOT): 507 Insufficient Storage, as a refused upload is; the write
 *   was taken back, nothing of it is stored.
 * - `ERR_STORE_FAILED` (another journal I/O error), `ERR_STORE_UNAVAILABLE` (etcd not reachable
 *   within the deadline: the write may or may not have been applied; a retry with the same
 *   `Idempotency-Key` is safe), and a store not open or already closed (during start-up or
 *   shutdown): 503 with `Retry-After: 1`.
 * - `ERR_STORE_CONFLICT` (other instances won every retry of a conditional write): 409.
 * - anything else (a damaged file, a malformed batch: a bug): 500, logged.
 * The failing errno is logged once per failure streak by the store's reporter, not per request.
 */
@MapsError(RecordStoreError)
export class StoreErrorMapper implements ExceptionMapper<RecordStoreError> {
  constructor(private readonly logError: (error: unknown, request: ContainerRequestContext) => void) {}

  toResponse(error: RecordStoreError, request: ContainerRequestContext): Response {
    const web = this.toWebError(error, request);
    const { body, headers } = serviceErrorEntity(web, request);
    return new Response(web.status, body, { ...headers, ...web.headers });
  }

  private toWebError(error: RecordStoreError, request: ContainerRequestContext): WebApplicationError {
    switch (error.code) {
      case 'ERR_STORE_FULL':
        return new WebApplicationError(507, 'Insufficient storage', { code: 'STORE_FULL' });
      case 'ERR_STORE_CONFLICT':
        // Only after the domain's retries lost to other writers every time: safe to retry.
        return new WebApplicationError(409, 'The resource changed concurrently; retry the request', { code: 'CONCURRENT_MODIFICATION' });
      case 'ERR_STORE_FAILED':
      case 'ERR_STORE_UNAVAILABLE':
      case 'ERR_STORE_CLOSED':
      case 'ERR_STORE_NOT_OPEN':
        return new ServiceUnavailableError('Storage unavailable', { retryAfterSeconds: 1, code: 'STORE_UNAVAILABLE' });
      default:
        this.logError(error, request);
        return new InternalServerError();
    }
  }
}

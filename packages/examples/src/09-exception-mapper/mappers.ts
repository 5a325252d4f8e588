import { MapsError, Response, type ContainerRequestContext, type ExceptionMapper } from '@jaxrs-node/pipeline';
import { AccountNotFoundError, DomainError, InsufficientFundsError } from './errors.js';

/** RFC 9457 problem details: `application/problem+json` is written by the built-in JSON writer. */
function problem(status: number, title: string, detail: string, request: ContainerRequestContext, extra: object = {}): Response {
  return Response.status(status)
    .type('application/problem+json')
    .entity({ type: 'about:blank', title, status, detail, instance: request.path, ...extra })
    .build();
}

/**
 * The catch-all for domain errors: 422, the request was understood but breaks a business rule.
 * `@MapsError(T)` maps T AND its subclasses; when several mappers could apply, the one for the
 * NEAREST class in the error's prototype chain wins.
 */
@MapsError(DomainError)
export class DomainErrorMapper implements ExceptionMapper<DomainError> {
  toResponse(error: DomainError, request: ContainerRequestContext): Response {
    return problem(422, 'Business rule violated', error.message, request, { error: error.name });
  }
}

@MapsError(AccountNotFoundError)
export class AccountNotFoundMapper implements ExceptionMapper<AccountNotFoundError> {
  toResponse(error: AccountNotFoundError, request: ContainerRequestContext): Response {
    return problem(404, 'Account not found', error.message, request, { accountId: error.accountId });
  }
}

@MapsError(InsufficientFundsError)
export class InsufficientFundsMapper implements ExceptionMapper<InsufficientFundsError> {
  toResponse(error: InsufficientFundsError, request: ContainerRequestContext): Response {
    return problem(409, 'Insufficient funds', error.message, request, { balance: error.balance, requested: error.requested });
  }
}

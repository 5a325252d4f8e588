/**
 * Example 9, exception-mapper: domain errors turned into HTTP responses by NEAREST type.
 *
 *   curl -i localhost:3000/api/accounts/nope                                  → 404 (AccountNotFoundMapper)
 *   curl -i -X POST -H 'content-type: application/json' -d '{"amount":500}' \
 *        localhost:3000/api/accounts/alice/withdrawals                         → 409 (InsufficientFundsMapper)
 *   ... -d '{"amount":5000}'  → 409 too: OverdraftLimitError has no mapper, its parent's is nearest
 *   ... /api/accounts/frozen/withdrawals                                       → 422 (DomainErrorMapper)
 *   curl -i localhost:3000/api/accounts/alice/audit                            → 500, cause logged, not sent
 */
import { Application, GET, Min, NotNull, Path, PathParam, POST, type ErrorLogger } from '@jaxrs-node/pipeline';
import { AccountFrozenError, AccountNotFoundError, InsufficientFundsError, OverdraftLimitError } from './errors.js';
import { AccountNotFoundMapper, DomainErrorMapper, InsufficientFundsMapper } from './mappers.js';

export * from './errors.js';

interface Account {
  balance: number;
  frozen: boolean;
}

const OVERDRAFT_LIMIT = 1000;

/** The request body; a zero or negative amount is a 400 before the method runs. */
export class Withdrawal {
  @NotNull()
  @Min(0, { exclusive: true })
  amount!: number;
}

@Path('/api/accounts/{id}')
export class AccountsResource {
  private readonly accounts = new Map<string, Account>([
    ['alice', { balance: 100, frozen: false }],
    ['frozen', { balance: 100, frozen: true }],
  ]);

  @GET()
  get(@PathParam('id') id: string): { id: string; balance: number } {
    return { id, balance: this.find(id).balance };
  }

  /** The method only throws domain errors; it knows nothing of status codes. */
  @POST('/withdrawals')
  withdraw(@PathParam('id') id: string, body: Withdrawal): { id: string; balance: number } {
    const account = this.find(id);
    if (account.frozen) throw new AccountFrozenError(id);
    const after = account.balance - body.amount;
    if (after < -OVERDRAFT_LIMIT) throw new OverdraftLimitError(account.balance, body.amount, OVERDRAFT_LIMIT);
    if (after < 0) throw new InsufficientFundsError(account.balance, body.amount);
    account.balance = after;
    return { id, balance: after };
  }

  /** A bug, not a domain error: no mapper matches, so the default one answers 500 and logs it. */
  @GET('/audit')
  audit(): never {
    throw new TypeError('audit log is not configured (internal detail that must not leak)');
  }

  private find(id: string): Account {
    const account = this.accounts.get(id);
    if (account === undefined) throw new AccountNotFoundError(id);
    return account;
  }
}

/** The application; `logger` receives unexpected (5xx) errors, default one JSON line on stderr. */
export function createApp(options: { logger?: ErrorLogger } = {}): Application {
  return new Application({
    resources: [AccountsResource],
    // Registration order does not matter: the nearest type wins, then the lower priority.
    providers: [DomainErrorMapper, InsufficientFundsMapper, AccountNotFoundMapper],
    logger: options.logger,
  });
}

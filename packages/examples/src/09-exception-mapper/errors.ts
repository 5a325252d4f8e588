/**
 * Domain errors of the bank example: plain classes, no HTTP in sight. The mappers decide what
 * they look like on the wire.
 *
 *   DomainError
 *   ├── AccountNotFoundError
 *   ├── AccountFrozenError            (no mapper of its own → DomainError's)
 *   └── InsufficientFundsError
 *       └── OverdraftLimitError       (no mapper of its own → InsufficientFundsError's, the nearest)
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class AccountNotFoundError extends DomainError {
  constructor(readonly accountId: string) {
    super(`account ${accountId} does not exist`);
  }
}

export class AccountFrozenError extends DomainError {
  constructor(readonly accountId: string) {
    super(`account ${accountId} is frozen`);
  }
}

export class InsufficientFundsError extends DomainError {
  constructor(
    readonly balance: number,
    readonly requested: number,
    message = `balance ${balance} is below ${requested}`,
  ) {
    super(message);
  }
}

export class OverdraftLimitError extends InsufficientFundsError {
  constructor(
    balance: number,
    requested: number,
    readonly limit: number,
  ) {
    super(balance, requested, `withdrawing ${requested} would pass the overdraft limit of ${limit}`);
  }
}

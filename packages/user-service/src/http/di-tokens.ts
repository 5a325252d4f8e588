/** DI tokens for the service's singletons (tsyringe `@inject(TOKEN)`). */
export const TOKENS = {
  config: Symbol('AppConfig'),
  store: Symbol('RecordStore'),
  users: Symbol('UserService'),
  orders: Symbol('OrderService'),
  products: Symbol('ProductView'),
  files: Symbol('FileStore'),
  jobs: Symbol('JobService'),
  jobEvents: Symbol('JobEventLogs'),
  idempotency: Symbol('IdempotencyService'),
  tokens: Symbol('TokenService'),
  /** `ExternalTokens`, or null when no external issuer is configured. */
  externalTokens: Symbol('ExternalTokens'),
  basic: Symbol('BasicAuthenticator'),
  apiKeys: Symbol('ApiKeyVerifier'),
  authFailures: Symbol('FailedAuthLimiter'),
  largeData: Symbol('LargeDataConcurrency'),
} as const;

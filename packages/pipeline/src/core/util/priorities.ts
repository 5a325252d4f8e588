/**
 * Priority constants (JAX-RS `Priorities`, plus this project's VALIDATION slot).
 * Lower runs first, except response filters, which run highest first (Processing rules §1).
 */
export const Priorities = Object.freeze({
  AUTHENTICATION: 1000,
  AUTHORIZATION: 2000,
  HEADER_DECORATOR: 3000,
  ENTITY_CODER: 4000,
  USER: 5000,
  VALIDATION: 6000,
});

/** The priority of a provider that declares none (JAX-RS: `Priorities.USER`). */
export const DEFAULT_PRIORITY = Priorities.USER;

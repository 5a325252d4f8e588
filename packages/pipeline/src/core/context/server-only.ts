/**
 * The type-level mark of what only the server supplies. The objects the pipeline injects into
 * `@Context()` parameters (Jakarta REST 3.1 §10.2: `UriInfo`, `HttpHeaders`, `SecurityContext`,
 * `ResourceInfo`, the request context; the SSE `Sse` and `SseEventSink`, §9.3) carry it, so a
 * typed client made from a contract (`ContractClient<T>` of `@jaxrs-node/pipeline/client`) leaves
 * those parameters out of its methods: the caller has nothing to pass for them. TypeScript cannot
 * see decorators; this mark is what it sees instead. It costs nothing at run time (a `declare`d
 * field emits no code); at run time the client leaves out every `@Context()` parameter but an
 * `AbortSignal`, since a type imported with `import type` is emitted as `Object` and cannot be told
 * apart there.
 */

/** The key of the {@link ServerOnly} mark (a symbol, so no entity type can carry it by accident). */
export const SERVER_ONLY: unique symbol = Symbol('jaxrs-node.serverOnly');

/**
 * A type the server injects and a client never sends: a contract parameter of such a type is left
 * out of the typed client's method.
 * @example
 * type Injected = UriInfo extends ServerOnly ? true : false; // true
 */
export interface ServerOnly {
  readonly [SERVER_ONLY]: true;
}

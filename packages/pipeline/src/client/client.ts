import type { Dispatcher } from 'undici';
import type { Constructor } from '../core/context/contracts.js';
import { EventStream, type EventStreamOptions } from './events.js';
import type { CallOptions, ClientOptions, PropagationRule } from './options.js';
import { planContract, proxyOf, type Contract, type ContractClient, type MethodPlan, type ResponseContractClient } from './proxy.js';
import type { RetryOptions } from './retry.js';
import { ClientState } from './state.js';
import { targetFor, type WebTarget } from './target.js';
import type { Transport } from './transport.js';

/** Which client made a proxy, and with which plans and call options (for {@link clientOf} and {@link withCallOptions}). */
const proxies = new WeakMap<object, { client: Client; plans: ReadonlyMap<string, MethodPlan>; raw: boolean }>();

/**
 * An HTTP client with the pipeline's provider model (JAX-RS `Client`): filters, interceptors,
 * readers and writers, mappers, timeouts, retries and a size cap, over a pooled undici `Agent` of
 * its own (or a given dispatcher, or in-process). Make one per upstream and reuse it; `close()` it
 * on shutdown.
 * @example
 * const client = new Client({ baseUrl: 'https://api.example.com', providers: [new BearerAuth(token)], deadline: 5_000 });
 * const users = client.proxy(UserContract);               // typed calls
 * const user = await users.get(7);
 * const r = await client.target('health').request().get(); // fluent calls
 * await client.close();
 */
export class Client {
  private readonly state: ClientState;
  private readonly plans = new Map<Contract, Map<string, MethodPlan>>();

  constructor(options: ClientOptions = {}) {
    this.state = new ClientState(options);
  }

  /** The base URL relative targets and contracts resolve against (no trailing slash), if any. */
  get baseUrl(): string | undefined {
    return this.state.baseUrl;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.state.closed;
  }

  /**
   * Adds a provider (class or instance; `priority` beats its `@Priority`). Only before the first
   * call or proxy: later calls would not see it.
   */
  register(provider: Constructor | object, options: { priority?: number } = {}): this {
    this.state.register(provider, options.priority);
    return this;
  }

  /** A target: an absolute URI, or a path relative to the base URL (none: the base URL itself). */
  target(uri?: string | URL): WebTarget {
    return targetFor(this.state, uri);
  }

  /**
   * The server-sent events of `uri` (relative to the base URL, or absolute) as an async iterable
   * that reconnects with `Last-Event-ID` (see {@link EventStream}); each connection is a GET
   * through this client's providers.
   * @example for await (const e of client.events('chat', { maxReconnects: 10 })) console.log(e.event, e.data);
   */
  events(uri?: string | URL, options: EventStreamOptions = {}): EventStream {
    return new EventStream(this.state, this.target(uri), options);
  }

  /**
   * The typed client of a contract: one function per resource method, resolving with its entity.
   * @throws TypeError when the contract has no resource method, a `@PathParam` names no variable,
   *   or the client has no base URL.
   */
  proxy<T>(contract: Contract<T>): ContractClient<T> {
    return this.make(contract, false) as ContractClient<T>;
  }

  /** The typed client of a contract whose methods resolve with the {@link ClientResponse}, whatever the status. */
  responseProxy<T>(contract: Contract<T>): ResponseContractClient<T> {
    return this.make(contract, true) as ResponseContractClient<T>;
  }

  /** Stops new calls (they fail with `CLIENT_CLOSED`) and closes the client's own pool. Idempotent. */
  async close(): Promise<void> {
    if (this.state.closed) return;
    this.state.closed = true;
    await this.state.transport.close();
  }

  private make(contract: Contract, raw: boolean): object {
    let plans = this.plans.get(contract);
    if (plans === undefined) {
      plans = planContract(this.state, contract, raw ? 'responseProxy' : 'proxy');
      this.plans.set(contract, plans);
    }
    const proxy = proxyOf(this.state, plans, undefined, raw);
    proxies.set(proxy, { client: this, plans, raw });
    return proxy;
  }

  /** @internal A proxy with per-call options, for {@link withCallOptions}. */
  static bind(proxy: object, options: CallOptions): object {
    const made = proxies.get(proxy);
    if (made === undefined) throw new TypeError('withCallOptions(proxy, ...): proxy must come from createClient or client.proxy()');
    const bound = proxyOf(made.client.state, made.plans, options, made.raw);
    proxies.set(bound, made);
    return bound;
  }
}

/**
 * A typed client of `contract` on a new {@link Client} (close it with `clientOf(proxy).close()`).
 * @example
 * const users = createClient(UserContract, { baseUrl: 'http://users.internal:8080', deadline: 2_000 });
 * const ada = await users.get(1);
 * const test = createClient(UserContract, { application: app }); // in-process, no socket
 */
export function createClient<T>(contract: Contract<T>, options: ClientOptions): ContractClient<T> {
  return new Client(options).proxy(contract);
}

/**
 * The {@link Client} a proxy calls through.
 * @example
 * const users = createClient(UserContract, { baseUrl });
 * process.once('SIGTERM', () => void clientOf(users).close());
 */
export function clientOf(proxy: object): Client {
  const made = proxies.get(proxy);
  if (made === undefined) throw new TypeError('clientOf(proxy): proxy must come from createClient or client.proxy()');
  return made.client;
}

/**
 * The same proxy with per-call settings: a signal, a deadline, the server request to propagate
 * headers from, extra headers, a size cap.
 * @example
 * \@GET('{id}') async get(\@PathParam('id') id: number, \@Context() request: ContainerRequestContext) {
 *   return withCallOptions(this.catalog, { request, signal: request.signal }).product(id);
 * }
 */
export function withCallOptions<P extends object>(proxy: P, options: CallOptions): P {
  return Client.bind(proxy, options) as P;
}

/**
 * A fluent way to configure a {@link Client} (JAX-RS `ClientBuilder`).
 * @example
 * const client = ClientBuilder.newBuilder().baseUrl(url).connectTimeout(1_000).deadline(5_000).register(new BearerAuth(t)).build();
 */
export class ClientBuilder {
  private readonly options: { -readonly [K in keyof ClientOptions]: ClientOptions[K] } = {};
  private readonly registrations: Array<{ provider: Constructor | object; priority: number | undefined }> = [];

  /** A builder with nothing set. @example ClientBuilder.newBuilder().baseUrl(url).build() */
  static newBuilder(): ClientBuilder {
    return new ClientBuilder();
  }

  /** A client with `options` (same as `new Client(options)`). @example ClientBuilder.newClient({ baseUrl }) */
  static newClient(options: ClientOptions = {}): Client {
    return new Client(options);
  }

  /** See {@link ClientOptions.baseUrl}. @example builder.baseUrl('https://api.example.com/v1') */
  baseUrl(url: string): this {
    this.options.baseUrl = url;
    return this;
  }
  /** See {@link ClientOptions.connectTimeout}. @example builder.connectTimeout(1_000) */
  connectTimeout(ms: number): this {
    this.options.connectTimeout = ms;
    return this;
  }
  /** See {@link ClientOptions.headersTimeout}. @example builder.headersTimeout(5_000) */
  headersTimeout(ms: number): this {
    this.options.headersTimeout = ms;
    return this;
  }
  /** See {@link ClientOptions.bodyTimeout}. @example builder.bodyTimeout(5_000) */
  bodyTimeout(ms: number): this {
    this.options.bodyTimeout = ms;
    return this;
  }
  /** See {@link ClientOptions.deadline}. @example builder.deadline(10_000) */
  deadline(ms: number): this {
    this.options.deadline = ms;
    return this;
  }
  /** See {@link ClientOptions.maxResponseBytes}. @example builder.maxResponseBytes(1 << 20) */
  maxResponseBytes(bytes: number): this {
    this.options.maxResponseBytes = bytes;
    return this;
  }
  /** See {@link ClientOptions.retry}. @example builder.retry({ maxRetries: 2 }) */
  retry(options: RetryOptions): this {
    this.options.retry = options;
    return this;
  }
  /** See {@link ClientOptions.connections}. @example builder.connections(16) */
  connections(count: number): this {
    this.options.connections = count;
    return this;
  }
  /** See {@link ClientOptions.http2}. @example builder.http2(true) */
  http2(allow: boolean): this {
    this.options.http2 = allow;
    return this;
  }
  /** See {@link ClientOptions.tls}. @example builder.tls({ ca: readFileSync('ca.pem') }) */
  tls(options: NonNullable<ClientOptions['tls']>): this {
    this.options.tls = options;
    return this;
  }
  /** A header sent with every request. @example builder.header('user-agent', 'shop/1.0') */
  header(name: string, value: string): this {
    this.options.headers = { ...this.options.headers, [name]: value };
    return this;
  }
  /** See {@link ClientOptions.propagate}. @example builder.propagate('x-request-id', 'traceparent') */
  propagate(...rules: PropagationRule[]): this {
    this.options.propagate = [...(this.options.propagate ?? []), ...rules];
    return this;
  }
  /** See {@link ClientOptions.dispatcher}. @example builder.dispatcher(new MockAgent()) */
  dispatcher(dispatcher: Dispatcher): this {
    this.options.dispatcher = dispatcher;
    return this;
  }
  /** See {@link ClientOptions.transport}. @example builder.transport(inProcess(app)) */
  transport(transport: Transport): this {
    this.options.transport = transport;
    return this;
  }
  /** Adds a provider; `priority` beats its `@Priority`. @example builder.register(new BearerAuth(token), { priority: 500 }) */
  register(provider: Constructor | object, options: { priority?: number } = {}): this {
    this.registrations.push({ provider, priority: options.priority });
    return this;
  }

  /** The client (options and providers are checked here). @example const client = builder.build(); */
  build(): Client {
    const client = new Client(this.options);
    for (const r of this.registrations) client.register(r.provider, { priority: r.priority });
    return client;
  }
}

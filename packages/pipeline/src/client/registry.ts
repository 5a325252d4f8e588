/**
 * The providers registered on a client, recognised by method name and placed in chains once:
 * global providers everywhere, name-bound ones (Jakarta REST 3.1 §6.5.2) only on contract
 * methods carrying all of their binding decorators. Chains are sorted as on the server: request
 * filters, interceptors and mappers ascending, response filters descending, ties global first then
 * registration order (src/core/model/provider-entry.ts).
 */
import type {
  Constructor,
  ContextResolver,
  Feature,
  MessageBodyReader,
  MessageBodyWriter,
  ParamConverterProvider,
  TypeToken,
} from '../core/context/contracts.js';
import type { NameBindingDecorator } from '../core/context/resource-info.js';
import { findClassMeta } from '../core/model/metadata.js';
import { ascending, descending, has, type ProviderEntry } from '../core/model/provider-entry.js';
import { ProviderCache } from '../core/internal/provider-cache.js';
import { DEFAULT_PRIORITY } from '../core/util/priorities.js';
import { typeName } from '../core/util/type-name.js';
import { defaultProviders } from '../providers/index.js';
import { JsonOptions } from '../providers/json-options.js';
import { ClientStreamReader, FallbackReader, FormWriter } from './body-providers.js';
import type {
  ClientFailureMapper,
  ClientReaderInterceptor,
  ClientRequestFilter,
  ClientResponseFilter,
  ClientWriterInterceptor,
  ResponseExceptionMapper,
} from './contracts.js';

/** One registration: a provider class or instance, a Feature, and an explicit priority. */
export interface ClientRegistration {
  readonly provider: Constructor | object;
  readonly priority?: number;
}

/** The chains one call runs, each already in its order. */
export interface ClientChains {
  readonly requestFilters: readonly ClientRequestFilter[];
  /** DESCENDING priority. */
  readonly responseFilters: readonly ClientResponseFilter[];
  readonly readerInterceptors: readonly ClientReaderInterceptor[];
  readonly writerInterceptors: readonly ClientWriterInterceptor[];
  readonly responseMappers: readonly ResponseExceptionMapper[];
  readonly failureMappers: readonly ClientFailureMapper[];
}

/** Method names of the client contracts, and what each one makes a provider. */
const CLIENT_CONTRACTS: ReadonlyArray<readonly [string, string]> = [
  ['filterClientRequest', 'ClientRequestFilter'],
  ['filterClientResponse', 'ClientResponseFilter'],
  ['aroundReadFrom', 'ClientReaderInterceptor'],
  ['aroundWriteTo', 'ClientWriterInterceptor'],
  ['readFrom', 'MessageBodyReader'],
  ['writeTo', 'MessageBodyWriter'],
  ['getConverter', 'ParamConverterProvider'],
  ['toError', 'ResponseExceptionMapper'],
  ['mapFailure', 'ClientFailureMapper'],
  ['getContext', 'ContextResolver'],
  ['setup', 'Feature'],
];
/** Server-only contracts: named in the error when one is registered on a client. */
const SERVER_ONLY = ['filterRequest', 'filterResponse', 'toResponse', 'configure'];

/** Everything a client knows about its providers, built once. */
export class ClientProviders {
  readonly readers: readonly MessageBodyReader[];
  readonly writers: readonly MessageBodyWriter[];
  /** The built-in readers and writers (an application's win ties, Jakarta REST 3.1 §4.1.3). */
  readonly builtin: ReadonlySet<object>;
  readonly converters: readonly ParamConverterProvider[];
  readonly readerChoices = new ProviderCache<MessageBodyReader>();
  readonly writerChoices = new ProviderCache<MessageBodyWriter>();
  /** The media type to send an entity of a type as, when nothing says (the writers' first), by type. */
  readonly writerTypes = new Map<TypeToken, string | null>();
  /** The chains of calls without a contract method, or whose method has no bound provider. */
  readonly global: ClientChains;
  private readonly entries: readonly ProviderEntry[];
  private readonly bound: boolean;

  constructor(registrations: readonly ClientRegistration[]) {
    const entries: ProviderEntry[] = [];
    const queue = [...registrations];
    let order = 0;
    while (queue.length > 0) {
      const reg = queue.shift()!;
      const instance = instantiate(reg.provider);
      if (has(instance, 'setup')) {
        (instance as Feature).setup({
          register(provider, options) {
            queue.push({ provider, priority: options?.priority });
            return this;
          },
        });
      }
      refuseUnknown(instance);
      const ctor = instance.constructor as Constructor;
      const meta = findClassMeta(ctor);
      const bindings = meta === undefined ? [] : [...meta.bindings.keys()];
      const priority = reg.priority ?? meta?.priority ?? DEFAULT_PRIORITY;
      if (!Number.isFinite(priority)) throw new TypeError(`${typeName(ctor)}: priority must be a finite number, got ${String(priority)}`);
      entries.push({
        instance,
        ctor,
        priority,
        bindings,
        preMatching: false,
        rank: bindings.length > 0 ? 1 : 0,
        order: order++,
        errorType: undefined,
        contextType: meta?.contextType,
      });
    }
    this.entries = entries;
    this.bound = entries.some((e) => e.bindings.length > 0);
    const resolvers = sorted<ContextResolver>(entries, 'getContext');
    const resolveJson =
      resolvers.length === 0
        ? undefined
        : (type: TypeToken): JsonOptions | undefined => {
            for (const r of resolvers) {
              const meta = findClassMeta(r.constructor);
              if (meta?.contextType !== undefined && meta.contextType !== JsonOptions) continue;
              const v = r.getContext(type);
              if (v instanceof JsonOptions) return v;
            }
            return undefined;
          };
    // The server's built-in providers, with the client's stream reader in place of the server's
    // (client errors, not 413s), a form writer, and the untyped fallback last. Not the server's
    // writer of streamed items: an iterable request body stays bytes (no server reader takes
    // NDJSON or a streamed array back), under whatever Content-Type it is sent with.
    const defaults: object[] = [
      new ClientStreamReader(),
      ...defaultProviders(resolveJson).filter((p) => {
        const name = (p as { name?: unknown }).name;
        return name !== 'StreamReader' && name !== 'IterableWriter';
      }),
      new FormWriter(),
      new FallbackReader(),
    ];
    this.readers = [
      ...sorted<MessageBodyReader>(entries, 'readFrom'),
      ...defaults.filter((p) => has(p, 'readFrom')),
    ] as MessageBodyReader[];
    this.writers = [...sorted<MessageBodyWriter>(entries, 'writeTo'), ...defaults.filter((p) => has(p, 'writeTo'))] as MessageBodyWriter[];
    this.builtin = new Set(defaults);
    this.converters = sorted<ParamConverterProvider>(entries, 'getConverter');
    this.global = this.chains(entries.filter((e) => e.bindings.length === 0));
  }

  /**
   * The chains of a contract method whose class and method carry `bindings`: the global providers
   * and the bound ones whose every binding decorator is there.
   */
  chainsFor(bindings: ReadonlyMap<NameBindingDecorator, unknown> | undefined): ClientChains {
    if (!this.bound || bindings === undefined || bindings.size === 0) return this.global;
    const applies = this.entries.filter((e) => e.bindings.every((b) => bindings.has(b)));
    return applies.some((e) => e.bindings.length > 0) ? this.chains(applies) : this.global;
  }

  private chains(list: readonly ProviderEntry[]): ClientChains {
    return {
      requestFilters: sorted(list, 'filterClientRequest'),
      responseFilters: sorted(list, 'filterClientResponse', descending),
      readerInterceptors: sorted(list, 'aroundReadFrom'),
      writerInterceptors: sorted(list, 'aroundWriteTo'),
      responseMappers: sorted(list, 'toError'),
      failureMappers: sorted(list, 'mapFailure'),
    };
  }
}

/** The instances among `list` with `method`, in `order`. */
function sorted<T>(list: readonly ProviderEntry[], method: string, order = ascending): T[] {
  return list
    .filter((e) => has(e.instance, method))
    .sort(order)
    .map((e) => e.instance as T);
}

const isClass = (x: unknown): x is Constructor => typeof x === 'function';

/** An instance of a registered class (`new C()`: providers with constructor arguments are registered as instances). */
function instantiate(provider: Constructor | object): object {
  if (!isClass(provider)) {
    if (typeof provider !== 'object' || provider === null) {
      throw new TypeError(`Client providers are classes or objects, got ${provider === null ? 'null' : typeof provider}`);
    }
    return provider;
  }
  if (provider.length > 0) {
    throw new TypeError(
      `${typeName(provider)}'s constructor takes arguments: register an instance instead (providers: [new ${typeName(provider)}(...)])`,
    );
  }
  return new provider() as object;
}

/** A registered object that is no client provider fails here, naming what it is and what would work. */
function refuseUnknown(instance: object): void {
  if (CLIENT_CONTRACTS.some(([m]) => has(instance, m))) return;
  const name = typeName(instance.constructor);
  const server = SERVER_ONLY.filter((m) => has(instance, m));
  const known = CLIENT_CONTRACTS.map(([m, c]) => `${m} (${c})`).join(', ');
  if (server.length > 0) {
    throw new TypeError(`${name} is a server provider (${server.join(', ')}): register it on an Application. A client recognises ${known}`);
  }
  throw new TypeError(`${name} is registered on a client but implements no client provider contract: a client recognises ${known}`);
}

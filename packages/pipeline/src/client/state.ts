import type { Constructor } from '../core/context/contracts.js';
import type { ClientCore } from './invoke.js';
import { resolveBaseUrl, resolvePolicy, resolveTransport, type ClientOptions, type ClientPolicy, type PropagationRule } from './options.js';
import { ClientProviders, type ClientRegistration } from './registry.js';
import type { ClientHeaders } from './request-context.js';
import type { Transport } from './transport.js';

/**
 * Everything a client's targets and proxies share: its checked options, transport and providers.
 * Built at construction, so a bad option or provider fails there.
 * @internal
 */
export class ClientState implements ClientCore {
  readonly policy: ClientPolicy;
  readonly transport: Transport;
  readonly propagate: readonly PropagationRule[];
  readonly baseUrl: string | undefined;
  closed: boolean;
  /** A proxy or a call used the providers: registering more would not reach them. */
  used: boolean;
  private readonly registrations: ClientRegistration[];
  private readonly defaults: ClientHeaders | undefined;
  private built: ClientProviders;

  constructor(options: ClientOptions) {
    this.policy = resolvePolicy(options);
    this.baseUrl = resolveBaseUrl(options.baseUrl) ?? (options.application === undefined ? undefined : 'http://localhost');
    this.propagate = (options.propagate ?? []).map((r) => (typeof r === 'string' ? r.toLowerCase() : r));
    for (const r of this.propagate) {
      if (typeof r !== 'string' && typeof r !== 'function') throw new TypeError('propagate: each rule is a header name or a function');
    }
    this.defaults = headerRecord(options.headers);
    this.registrations = (options.providers ?? []).map((provider) => ({ provider }));
    this.built = new ClientProviders(this.registrations);
    this.transport = resolveTransport(options, this.policy);
    this.closed = false;
    this.used = false;
  }

  get providers(): ClientProviders {
    return this.built;
  }

  /** Adds a provider (checked now); only before the client's first call or proxy. */
  register(provider: Constructor | object, priority: number | undefined): void {
    if (this.used) {
      throw new Error('register() after the client made a call or a proxy: register providers first (or in the providers option)');
    }
    const next = [...this.registrations, { provider, priority }];
    this.built = new ClientProviders(next);
    this.registrations.push({ provider, priority });
  }

  /** A fresh header object for one call, holding the default headers. */
  headers(): ClientHeaders {
    return this.defaults === undefined ? {} : { ...this.defaults };
  }
}

/** Headers with lower-case names. */
function headerRecord(headers: Readonly<Record<string, string>> | undefined): ClientHeaders | undefined {
  if (headers === undefined) return undefined;
  const out: ClientHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (typeof v !== 'string') throw new TypeError(`headers.${k} must be a string, got ${typeof v}`);
    out[k.toLowerCase()] = v;
  }
  return out;
}

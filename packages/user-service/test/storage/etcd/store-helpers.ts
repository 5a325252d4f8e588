/**
 * Helpers of the EtcdRecordStore tests: stores on unique prefixes (closed after each file) and a
 * TCP proxy on 127.0.0.1 that can cut a store off from etcd without touching the members.
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { EtcdRecordStore, type EtcdStoreOptions } from '../../../src/storage/etcd/store.js';

let prefixes = 0;

/** A prefix no other store of this test process uses. */
export function uniquePrefix(name = 'test'): string {
  return `/t-${process.pid}-${++prefixes}-${name}`;
}

/** Opens and tracks stores; `closeAll()` closes every one (in `afterAll`/`afterEach`). */
export class Stores {
  readonly #open: EtcdRecordStore[] = [];

  /** A new store (unopened) on `endpoints`; `prefix` defaults to a unique one. */
  make(endpoints: readonly string[], options: Partial<EtcdStoreOptions> = {}): EtcdRecordStore {
    const store = new EtcdRecordStore({ endpoints, prefix: uniquePrefix(), ...options });
    this.#open.push(store);
    return store;
  }

  /** {@link make}, opened. */
  async open(endpoints: readonly string[], options: Partial<EtcdStoreOptions> = {}): Promise<EtcdRecordStore> {
    const store = this.make(endpoints, options);
    await store.open();
    return store;
  }

  async closeAll(): Promise<void> {
    const all = this.#open.splice(0);
    await Promise.all(all.map((s) => s.close()));
  }
}

/**
 * Forwards 127.0.0.1:`port` to `target`. `cut()` destroys every connection and refuses new ones
 * (as a network partition would, with resets); `freeze()` keeps connections open but forwards
 * nothing, on them or on new ones (as a stalled member would); `holdAnswers()` forwards requests
 * but no answers (a member that applies a write whose answer never arrives); `freezeAfter(text)`
 * freezes everything right after forwarding a request chunk that contains `text` (a network stall
 * that begins once a write has reached etcd); `restore()` forwards again.
 */
export class CutProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #upstreams = new Set<Socket>();
  #cut = false;
  #frozen = false;
  #holding = false;
  #trigger: { text: string; left: number; onFrozen: (() => void) | undefined } | undefined;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** The proxy's client URL, e.g. `http://127.0.0.1:40123`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  static async start(target: string): Promise<CutProxy> {
    const { hostname, port } = new URL(target);
    const server = createServer();
    const proxy = new CutProxy(server);
    server.on('connection', (client) => proxy.#accept(client, hostname, Number(port)));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  freeze(): void {
    this.#frozen = true;
    for (const socket of this.#sockets) socket.pause();
  }

  holdAnswers(): void {
    this.#holding = true;
    for (const socket of this.#upstreams) socket.pause();
  }

  /** Freezes after the `nth` request chunk containing `text` from now, then calls `onFrozen`. */
  freezeAfter(text: string, nth = 1, onFrozen?: () => void): void {
    this.#trigger = { text, left: nth, onFrozen };
  }

  restore(): void {
    this.#trigger = undefined;
    this.#cut = false;
    this.#frozen = false;
    this.#holding = false;
    for (const socket of this.#sockets) socket.resume();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #accept(client: Socket, host: string, port: number): void {
    if (this.#cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    this.#upstreams.add(upstream);
    upstream.once('close', () => this.#upstreams.delete(upstream));
    for (const s of [client, upstream]) {
      this.#sockets.add(s);
      s.on('error', () => undefined);
      s.once('close', () => {
        this.#sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.connect(port, host);
    client.pipe(upstream);
    // Registered after pipe(): the chunk is forwarded before the freeze.
    client.on('data', (chunk: Buffer) => {
      const trigger = this.#trigger;
      if (trigger === undefined || !chunk.includes(trigger.text) || --trigger.left > 0) return;
      this.#trigger = undefined;
      this.freeze();
      trigger.onFrozen?.();
    });
    upstream.pipe(client);
    if (this.#frozen) for (const s of [client, upstream]) s.pause();
    else if (this.#holding) upstream.pause();
  }
}

/**
 * Starts and tracks proxies; `closeAll()` restores them (so that the stores behind them close
 * promptly, revoking their leases), closes `stores`, then closes every proxy.
 */
export class Proxies {
  readonly #all: CutProxy[] = [];

  async start(target: string): Promise<CutProxy> {
    const proxy = await CutProxy.start(target);
    this.#all.push(proxy);
    return proxy;
  }

  async closeAll(stores: Stores): Promise<void> {
    for (const proxy of this.#all) proxy.restore();
    await stores.closeAll();
    await Promise.all(this.#all.splice(0).map((p) => p.close()));
  }
}

import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApp,
  ProductResource,
  PROVIDERS,
  RESOURCES,
  ServedAtFilter,
  type InstanceReport,
} from '../src/15-dependency-injection/app.js';
import {
  Clock,
  DEFAULT_PRICING_RULES,
  InventoryRepository,
  PRICING_RULES,
  PriceService,
  registerServices,
  SERVICES,
  type PricingRules,
  type Quote,
} from '../src/15-dependency-injection/services.js';
import { listen, send, type Running } from './helpers/http.js';

/** A clock stuck at `iso`: a substitute with the shape of `Clock`, registered by value. */
const fixedClock = (iso: string): Clock => ({ now: () => new Date(iso) });

/** A container with a fixed clock registered BEFORE the application resolves anything. */
function containerAt(iso: string) {
  const container = rootContainer.createChildContainer();
  container.register(Clock, { useValue: fixedClock(iso) });
  return container;
}

describe('15 dependency injection: over a socket', () => {
  let server: Running;
  beforeAll(async () => {
    server = await listen(createApp());
  });
  afterAll(async () => {
    await server?.close(); // undefined if listen() failed: its error is the one to see
  });

  it('the resource gets PriceService (Clock + repository), the response filter the same Clock', async () => {
    const before = Date.now();
    const r = await send(server.url, '/api/products/cup');
    const after = Date.now();
    expect(r.status).toBe(200);
    const quote = r.json<Quote>();
    // The default rule, restated rather than read back: 20 % off from 16:00 (inclusive) to 18:00 UTC.
    const hour = new Date(quote.quotedAt).getUTCHours();
    const happyHour = hour >= 16 && hour < 18;
    expect(quote).toMatchObject({ sku: 'cup', name: 'Stoneware cup', inStock: 10, currency: 'EUR' });
    expect([quote.happyHour, quote.priceCents]).toEqual([happyHour, happyHour ? 960 : 1200]);
    for (const iso of [quote.quotedAt, String(r.headers['x-served-at'])]) {
      const t = Date.parse(iso);
      expect(new Date(t).toISOString()).toBe(iso);
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
    }
  });

  it('the resource and PriceService share ONE repository: a reservation shows in the next quote', async () => {
    for (const left of [2, 1, 0]) {
      const r = await send(server.url, '/api/products/tea/reservations', { method: 'POST' });
      expect(r.status).toBe(200);
      expect(r.json()).toEqual({ sku: 'tea', inStock: left });
      expect((await send(server.url, '/api/products/tea')).json<Quote>().inStock).toBe(left);
    }
    const sold = await send(server.url, '/api/products/tea/reservations', { method: 'POST' });
    expect(sold.status).toBe(409);
    expect(sold.json()).toMatchObject({ status: 409, message: 'tea is out of stock' });
    expect((await send(server.url, '/api/products/nope')).status).toBe(404);
  });

  it('a singleton resource (the default) is one instance for every request', async () => {
    const reports: InstanceReport[] = [];
    for (let i = 0; i < 3; i++) reports.push((await send(server.url, '/api/scope/singleton')).json<InstanceReport>());
    expect(reports.map((r) => r.scope)).toEqual(['singleton', 'singleton', 'singleton']);
    expect(new Set(reports.map((r) => r.instance)).size).toBe(1);
    // One shared counter: consecutive, whatever other tests of this suite sent before.
    expect(reports.map((r) => r.handled - reports[0]!.handled)).toEqual([0, 1, 2]);
  });

  it('a @RequestScoped() resource is a new instance for every request, concurrent ones included', async () => {
    const singleton = (await send(server.url, '/api/scope/singleton')).json<InstanceReport>().instance;
    const reports = await Promise.all(
      Array.from({ length: 5 }, async () => (await send(server.url, '/api/scope/request')).json<InstanceReport>()),
    );
    expect(reports.map((r) => r.handled)).toEqual([1, 1, 1, 1, 1]);
    const instances = new Set(reports.map((r) => r.instance));
    expect(instances.size).toBe(5);
    // Numbered by the app's one InstanceCounter: the request-scoped resource got the shared service.
    expect(instances.has(singleton)).toBe(false);
  });
});

describe('15 dependency injection: substitutes and isolation', () => {
  it('a fixed Clock registered before createApp makes the response exact (in-process)', async () => {
    const app = createApp(containerAt('2030-01-01T17:00:00.000Z'));
    const r = await app.inject('/api/products/tea');
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({
      sku: 'tea',
      name: 'Green tea, 100 g',
      inStock: 3,
      priceCents: 520,
      currency: 'EUR',
      happyHour: true,
      quotedAt: '2030-01-01T17:00:00.000Z',
    });
    expect(r.headers['x-served-at']).toBe('2030-01-01T17:00:00.000Z');
  });

  it('substitutes over a socket too: a clock outside happy hour, and rules under the interface token', async () => {
    const container = containerAt('2030-01-01T09:30:00.000Z');
    const rules: PricingRules = { currency: 'CHF', happyHour: { fromHour: 9, toHour: 10, percentOff: 50 } };
    container.register(PRICING_RULES, { useValue: rules });
    const running = await listen(createApp(container));
    try {
      const r = await send(running.url, '/api/products/cup');
      expect(r.json()).toMatchObject({ priceCents: 600, currency: 'CHF', happyHour: true, quotedAt: '2030-01-01T09:30:00.000Z' });
      expect(r.headers['x-served-at']).toBe('2030-01-01T09:30:00.000Z');
    } finally {
      await running.close();
    }
    const defaults = await createApp(containerAt('2030-01-01T09:30:00.000Z')).inject('/api/products/cup');
    expect(defaults.json()).toMatchObject({ priceCents: 1200, currency: 'EUR', happyHour: false });
  });

  it('two applications on two child containers share no state', async () => {
    const a = rootContainer.createChildContainer();
    const b = rootContainer.createChildContainer();
    const appA = createApp(a);
    const appB = createApp(b);
    expect((await appA.inject({ method: 'POST', url: '/api/products/tea/reservations' })).json()).toEqual({ sku: 'tea', inStock: 2 });
    expect((await appA.inject('/api/products/tea')).json<Quote>().inStock).toBe(2);
    expect((await appB.inject('/api/products/tea')).json<Quote>().inStock).toBe(3);
    expect(a.resolve(InventoryRepository)).not.toBe(b.resolve(InventoryRepository));
    expect(a.resolve(InventoryRepository).find('tea')?.stock).toBe(2);
    // Each app numbers its own instances: B's singleton resource is #1 of B's counter too.
    const singletonA = (await appA.inject('/api/scope/singleton')).json<InstanceReport>();
    const singletonB = (await appB.inject('/api/scope/singleton')).json<InstanceReport>();
    expect([singletonA.instance, singletonB.instance]).toEqual([1, 1]);
    expect([singletonA.handled, singletonB.handled]).toEqual([1, 1]);
    // Nothing leaked into the root container that every child falls back to.
    expect(rootContainer.isRegistered(InventoryRepository, true)).toBe(false);
    expect(rootContainer.isRegistered(Clock, true)).toBe(false);
  });

  it('what a PARENT container registered is not looked at: each application still gets its own', async () => {
    // A throwaway parent, never tsyringe's root: as if `@singleton()` had put the repository there.
    const parent = rootContainer.createChildContainer();
    parent.registerSingleton(InventoryRepository);
    const rules: PricingRules = { currency: 'CHF', happyHour: { fromHour: 0, toHour: 24, percentOff: 50 } };
    parent.register(PRICING_RULES, { useValue: rules });
    const a = parent.createChildContainer();
    const b = parent.createChildContainer();
    const appA = createApp(a);
    const appB = createApp(b);
    expect((await appA.inject({ method: 'POST', url: '/api/products/tea/reservations' })).json()).toEqual({ sku: 'tea', inStock: 2 });
    expect((await appA.inject('/api/products/tea')).json<Quote>().inStock).toBe(2);
    expect((await appB.inject('/api/products/tea')).json<Quote>().inStock).toBe(3);
    const shared = parent.resolve(InventoryRepository);
    expect(shared.find('tea')?.stock).toBe(3);
    expect(new Set([shared, a.resolve(InventoryRepository), b.resolve(InventoryRepository)]).size).toBe(3);
    // The parent's rules are shadowed the same way: each app has the defaults.
    expect((await appB.inject('/api/products/cup')).json<Quote>().currency).toBe('EUR');
    expect(a.resolve<PricingRules>(PRICING_RULES)).toBe(DEFAULT_PRICING_RULES);
  });

  it('every class of the example resolves from its container (decorator metadata is emitted)', () => {
    const classes = [...SERVICES, ...RESOURCES, ...PROVIDERS];
    expect(classes).toHaveLength(8);
    const container = registerServices(rootContainer.createChildContainer());
    for (const cls of classes) expect(container.resolve(cls)).toBeInstanceOf(cls);
    // What tsyringe reads: the constructor parameter types TypeScript emitted (esbuild would not).
    expect(Reflect.getMetadata('design:paramtypes', ProductResource)).toEqual([PriceService, InventoryRepository]);
    expect(Reflect.getMetadata('design:paramtypes', ServedAtFilter)).toEqual([Clock]);
    const prices = container.resolve(PriceService);
    expect(prices).toBe(container.resolve(PriceService));
    expect(prices.quote('cup')?.inStock).toBe(10);
  });
});

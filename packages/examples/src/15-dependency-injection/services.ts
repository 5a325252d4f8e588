/**
 * The services of example 15: plain classes marked `@injectable()`, so tsyringe reads their
 * constructor parameter types from the decorator metadata TypeScript emits
 * (`emitDecoratorMetadata`) and builds them for the resources and providers that ask for them.
 */
import 'reflect-metadata';
import { inject, injectable, type DependencyContainer } from 'tsyringe';
import type { Constructor } from '@jaxrs-node/pipeline';

/** The time source. A class rather than `Date.now()` calls, so a test can register a fixed one. */
@injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** One product as the repository stores it. Prices in cents: no floating-point money. */
export interface Product {
  readonly sku: string;
  readonly name: string;
  readonly unitPriceCents: number;
  stock: number;
}

const SEED: readonly Product[] = [
  { sku: 'tea', name: 'Green tea, 100 g', unitPriceCents: 650, stock: 3 },
  { sku: 'cup', name: 'Stoneware cup', unitPriceCents: 1200, stock: 10 },
];

/** An in-memory stand-in for a database table; its state lives as long as its container's instance. */
@injectable()
export class InventoryRepository {
  private readonly products = new Map(SEED.map((p) => [p.sku, { ...p }]));

  /** A copy, so callers cannot change the stock behind the repository's back. */
  find(sku: string): Product | undefined {
    const p = this.products.get(sku);
    return p === undefined ? undefined : { ...p };
  }

  /** Takes one unit out of stock; `undefined` for an unknown SKU, `false` when none is left. */
  reserveOne(sku: string): Product | false | undefined {
    const p = this.products.get(sku);
    if (p === undefined) return undefined;
    if (p.stock === 0) return false;
    p.stock--;
    return { ...p };
  }
}

/**
 * Pricing configuration. An interface has no run-time existence, so the metadata of a parameter
 * typed with it says `Object`: such a dependency needs an explicit token ({@link PRICING_RULES}).
 */
export interface PricingRules {
  readonly currency: string;
  /** Happy hour, in UTC hours: `fromHour` inclusive, `toHour` exclusive. */
  readonly happyHour: { readonly fromHour: number; readonly toHour: number; readonly percentOff: number };
}

/** The injection token of {@link PricingRules}. */
export const PRICING_RULES = 'PricingRules';

/** The rules `registerServices` installs when the caller did not provide any. */
export const DEFAULT_PRICING_RULES: PricingRules = { currency: 'EUR', happyHour: { fromHour: 16, toHour: 18, percentOff: 20 } };

/** A price quote: what `GET /api/products/{sku}` answers. */
export interface Quote {
  sku: string;
  name: string;
  inStock: number;
  priceCents: number;
  currency: string;
  happyHour: boolean;
  quotedAt: string;
}

/** Prices a product at the current time: depends on the clock AND the repository. */
@injectable()
export class PriceService {
  // Value imports (not `import type`): the metadata refers to the classes themselves at run time.
  constructor(
    private readonly clock: Clock,
    private readonly inventory: InventoryRepository,
    @inject(PRICING_RULES) private readonly rules: PricingRules,
  ) {}

  /** The quote for `sku` now, or `undefined` when the SKU is unknown. */
  quote(sku: string): Quote | undefined {
    const product = this.inventory.find(sku);
    if (product === undefined) return undefined;
    const now = this.clock.now();
    const { fromHour, toHour, percentOff } = this.rules.happyHour;
    const happyHour = now.getUTCHours() >= fromHour && now.getUTCHours() < toHour;
    const priceCents = happyHour ? Math.round((product.unitPriceCents * (100 - percentOff)) / 100) : product.unitPriceCents;
    return {
      sku,
      name: product.name,
      inStock: product.stock,
      priceCents,
      currency: this.rules.currency,
      happyHour,
      quotedAt: now.toISOString(),
    };
  }
}

/** Numbers the resource instances built in one container, so responses show which instance ran. */
@injectable()
export class InstanceCounter {
  private last = 0;
  next(): number {
    return ++this.last;
  }
}

/** Every service class of the example (the test resolves each one). */
export const SERVICES: readonly Constructor<object>[] = [Clock, InventoryRepository, PriceService, InstanceCounter];

/**
 * Registers every class of {@link SERVICES} as a singleton OF `container`, and the
 * {@link DEFAULT_PRICING_RULES} under {@link PRICING_RULES}, skipping each one the caller already
 * registered in `container` ITSELF (a test substitutes the clock that way). Registrations in its
 * ancestors do not count: they are shadowed, so a class a parent container (or tsyringe's root,
 * where `@singleton()` puts it) holds is still built once per `container`, never shared.
 *
 * Why register at all: for a class nobody registered, tsyringe is transient, so `PriceService` and
 * the resource would each get their OWN repository and a reservation would never show in a quote.
 * Why not tsyringe's `@singleton()`: it registers in the ROOT container, so two applications in one
 * process would share one repository; looking up the parents here would bring that sharing back.
 */
export function registerServices(container: DependencyContainer): DependencyContainer {
  for (const service of SERVICES) if (!container.isRegistered(service)) container.registerSingleton(service);
  if (!container.isRegistered(PRICING_RULES)) container.register(PRICING_RULES, { useValue: DEFAULT_PRICING_RULES });
  return container;
}

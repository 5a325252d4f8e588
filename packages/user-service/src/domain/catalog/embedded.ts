/**
 * The embedded product catalog behind `GET /api/products/<id>` and order pricing.
 *
 * Orders take a {@link ProductLookup} rather than this class, so an upstream catalog (HTTP,
 * undici) can replace it without touching order logic; the lookup is async for that reason.
 * Products are frozen: the same objects are handed to every caller.
 */
import type { ContainerRequestContext } from '@jaxrs-node/pipeline';

/** A catalog product. `price` is in `currency` units with at most 2 decimals. */
export interface Product {
  readonly id: number;
  readonly name: string;
  readonly price: number;
  readonly currency: 'USD';
  readonly description: string;
}

/** Finds a product by id; `undefined` when it does not exist. May reject (e.g. upstream 502/504). */
export type ProductLookup = (id: number) => Promise<Product | undefined>;

/**
 * What `GET /api/products/{id}` shows: the embedded product, or the upstream product with only
 * the fields the upstream sent (`docs/api.md` rule 20: id and name, price when present).
 * `from`, the server request it is asked for, lets an upstream call forward its request id and
 * trace context.
 */
export type ProductView = (id: number, from?: ContainerRequestContext) => Promise<object | undefined>;

function product(id: number, name: string, price: number, description: string): Product {
  return Object.freeze({ id, name, price, currency: 'USD', description });
}

/** The built-in products, ids 1..12. */
export const EMBEDDED_PRODUCTS: readonly Product[] = Object.freeze([
  product(1, 'Laptop', 999.99, '14-inch laptop, 16 GB RAM, 512 GB SSD'),
  product(2, 'Wireless Mouse', 29.99, 'Ergonomic 2.4 GHz wireless mouse'),
  product(3, 'Mechanical Keyboard', 89.5, 'Tenkeyless keyboard with brown switches'),
  product(4, '27-inch Monitor', 249, 'QHD IPS monitor, 75 Hz'),
  product(5, 'USB-C Hub', 39.95, '7-in-1 hub: HDMI, USB-A, SD, Ethernet'),
  product(6, 'Noise-Cancelling Headphones', 199.99, 'Over-ear Bluetooth headphones'),
  product(7, 'Webcam', 59.9, '1080p webcam with stereo microphones'),
  product(8, 'Laptop Stand', 24.99, 'Adjustable aluminium stand'),
  product(9, 'External SSD 1 TB', 109.99, 'USB 3.2 portable solid-state drive'),
  product(10, 'Desk Lamp', 34.75, 'LED lamp with adjustable colour temperature'),
  product(11, 'Office Chair', 329, 'Mesh chair with lumbar support'),
  product(12, 'HDMI Cable 2 m', 9.99, 'HDMI 2.1 cable, 48 Gbit/s'),
]);

/**
 * Read-only catalog over a fixed product list (the embedded one by default).
 *
 * @example new EmbeddedCatalog().get(1)?.name // 'Laptop'
 */
export class EmbeddedCatalog {
  private readonly byId: ReadonlyMap<number, Product>;
  private readonly all: readonly Product[];

  constructor(products: readonly Product[] = EMBEDDED_PRODUCTS) {
    this.all = [...products].sort((a, b) => a.id - b.id);
    this.byId = new Map(this.all.map((p) => [p.id, p]));
  }

  /** The product, or `undefined`. */
  get(id: number): Product | undefined {
    return this.byId.get(id);
  }

  /** Every product, ascending id. */
  list(): Product[] {
    return [...this.all];
  }

  /** This catalog as the async lookup orders consume. */
  readonly lookup: ProductLookup = (id) => Promise.resolve(this.get(id));
}

import { describe, expect, it } from 'vitest';
import { EMBEDDED_PRODUCTS, EmbeddedCatalog } from '../../../src/domain/catalog/embedded.js';
import { priceToCents } from '../../../src/domain/orders/model.js';

describe('EmbeddedCatalog', () => {
  const catalog = new EmbeddedCatalog();

  it('holds at least 10 products, product 1 included', () => {
    expect(catalog.list().length).toBeGreaterThanOrEqual(10);
    expect(catalog.get(1)).toEqual({ id: 1, name: 'Laptop', price: 999.99, currency: 'USD', description: expect.any(String) });
  });

  it('answers undefined for unknown ids', async () => {
    for (const id of [0, -1, 13, 1.5, Number.NaN]) expect(catalog.get(id)).toBeUndefined();
    await expect(catalog.lookup(999)).resolves.toBeUndefined();
    await expect(catalog.lookup(2)).resolves.toMatchObject({ name: 'Wireless Mouse' });
  });

  it('lists ascending by id, with unique ids, non-empty names and valid 2-decimal prices', () => {
    const ids = catalog.list().map((p) => p.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of EMBEDDED_PRODUCTS) {
      expect(p.name.length).toBeGreaterThan(0);
      expect(p.currency).toBe('USD');
      expect(() => priceToCents(p)).not.toThrow();
    }
  });

  it('hands out frozen products and a list copy', () => {
    expect(Object.isFrozen(catalog.get(1))).toBe(true);
    catalog.list().pop();
    expect(catalog.list().length).toBe(EMBEDDED_PRODUCTS.length);
  });
});

import { describe, expect, it } from 'vitest';
import { typeName } from '../../src/core/util/type-name.js';

describe('typeName (error messages)', () => {
  it('names classes, descriptors with a name, plain objects and primitives, never [object Object]', () => {
    class User {}
    expect(typeName(User)).toBe('User');
    expect(typeName({ name: 'ListOf<User>' })).toBe('ListOf<User>');
    expect(typeName({})).toBe('Object');
    expect(typeName(Object.create(null))).toBe('object');
    expect(typeName('text/csv')).toBe('text/csv');
    expect(typeName(Symbol('s'))).toBe('Symbol(s)');
  });
});

import { describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../src/domain/seed/demo-data.js';
import { USER_JSON_SCHEMA, validateAgainstUserSchema } from '../../../src/domain/users/schema.js';
import type { UserRepresentation } from '../../../src/domain/users/representation.js';
import { UserService } from '../../../src/domain/users/service.js';
import { FakeRecordStore, manualClock } from '../fake-store.js';

const good = {
  id: 1,
  email: 'test@example.com',
  firstName: 'John',
  lastName: 'Doe',
  age: 30,
  fullName: 'John Doe',
  status: 'ACTIVE',
  roles: ['USER'],
  createdAt: '2024-01-15T10:30:00Z',
  updatedAt: '2024-01-15T10:30:00Z',
  birthDate: '1994-05-15',
};

describe('USER_JSON_SCHEMA', () => {
  it('states the SPEC rules', () => {
    expect(USER_JSON_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(USER_JSON_SCHEMA.additionalProperties).toBe(false);
    expect(USER_JSON_SCHEMA.required).toEqual(['id', 'email', 'firstName', 'lastName', 'createdAt']);
    expect(USER_JSON_SCHEMA.properties.age).toEqual({ type: 'integer', minimum: 18, maximum: 100 });
    expect(USER_JSON_SCHEMA.properties.roles.minItems).toBe(1);
    expect(USER_JSON_SCHEMA.properties.firstName).toMatchObject({ minLength: 1, maxLength: 50 });
  });
});

describe('validateAgainstUserSchema', () => {
  it('accepts a complete user and a minimal one', () => {
    expect(validateAgainstUserSchema(good)).toEqual([]);
    expect(
      validateAgainstUserSchema({ id: 2, email: 'a@b.io', firstName: 'A', lastName: 'B', createdAt: '2024-01-01T00:00:00.123+01:00' }),
    ).toEqual([]);
  });

  it.each([
    ['extra property', { ...good, password: 'x' }, '/: unexpected property password'],
    ['missing createdAt', { ...good, createdAt: undefined }, '/createdAt: must be of type string'],
    ['age too low', { ...good, age: 17 }, '/age: must be >= 18'],
    ['age too high', { ...good, age: 101 }, '/age: must be <= 100'],
    ['age null', { ...good, age: null }, '/age: must be of type integer'],
    ['age fractional', { ...good, age: 30.5 }, '/age: must be of type integer'],
    ['empty lastName', { ...good, lastName: '' }, '/lastName: shorter than 1'],
    ['long firstName', { ...good, firstName: 'x'.repeat(51) }, '/firstName: longer than 50'],
    ['bad email', { ...good, email: 'nope' }, '/email: not a valid email'],
    ['no roles', { ...good, roles: [] }, '/roles: fewer than 1 items'],
    ['role not a string', { ...good, roles: [1] }, '/roles/0: must be of type string'],
    ['id zero', { ...good, id: 0 }, '/id: must be >= 1'],
    ['bad date-time', { ...good, updatedAt: '2024-01-15 10:30:00' }, '/updatedAt: not a valid date-time'],
    ['impossible date-time', { ...good, createdAt: '2023-02-29T10:30:00Z' }, '/createdAt: not a valid date-time'],
    ['bad date', { ...good, birthDate: '1994-02-30' }, '/birthDate: not a valid date'],
  ])('rejects %s', (_name, value, message) => {
    expect(validateAgainstUserSchema(value)).toContain(message);
  });

  it('reports a missing required property and a non-object', () => {
    const { createdAt: _omitted, ...rest } = good;
    expect(validateAgainstUserSchema(rest)).toEqual(['/: missing required property createdAt']);
    expect(validateAgainstUserSchema([])).toEqual(['/: must be of type object']);
    expect(validateAgainstUserSchema(null)).toEqual(['/: must be of type object']);
  });
});

describe('every representation the service emits is valid against the schema', () => {
  it('after create, patch, replace, list, search, pages and seed', async () => {
    const store = new FakeRecordStore();
    const time = manualClock();
    const result = await seedDemoData(store, time.clock);
    expect(result.seeded).toBe(true);
    const users = new UserService(store, { clock: time.clock });
    const emitted: UserRepresentation[] = [];
    const keep = <T>(value: T): T => {
      emitted.push(value as UserRepresentation);
      return value;
    };
    keep(await users.create({ email: 'min@example.com', firstName: 'Mi', lastName: 'N' }));
    keep(await users.create({ email: 'max@example.com', firstName: '😀'.repeat(50), lastName: 'z'.repeat(50), age: 100 }));
    const { id } = keep(await users.create({ email: 'p@example.com', firstName: 'Pat', lastName: 'Ch', age: 18 }));
    time.advance(3600);
    keep(await users.patch(id, { age: null, lastName: 'Changed' }));
    keep(await users.replace(id, { email: 'r@example.com', firstName: 'Re', lastName: 'Placed', age: 55 }));
    await users.createVariant({ name: 'V', email: 'v@example.com' }); // variant: excluded from lists below
    emitted.push(...users.list(), ...users.search('example'), ...users.findByEmail('test@example.com'));
    for (const sort of ['id,desc', 'age,asc', 'lastName,desc', 'updatedAt']) emitted.push(...users.page({ sort, size: 3 }).content);
    for (const u of users.list()) keep(users.get(u.id));

    expect(emitted.length).toBeGreaterThan(30);
    for (const representation of emitted) expect(validateAgainstUserSchema(representation), JSON.stringify(representation)).toEqual([]);
    // Round trip through JSON, as clients see it.
    for (const representation of emitted) expect(validateAgainstUserSchema(JSON.parse(JSON.stringify(representation)))).toEqual([]);
  });
});

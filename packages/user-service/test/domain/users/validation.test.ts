import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  isValidEmail,
  mergePatchUserInput,
  splitVariantName,
  validateUserInput,
  validateVariantInput,
} from '../../../src/domain/users/validation.js';

const valid = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36 };
const fields = (body: unknown): string[] => validateUserInput(body).violations.map((v) => v.field);

describe('validateUserInput', () => {
  it('accepts a valid body and copies only whitelisted fields', () => {
    const result = validateUserInput({ ...valid, id: 99, roles: ['ADMIN'], status: 'X', fullName: 'x', nick: 'y' });
    expect(result.violations).toEqual([]);
    expect(result.value).toEqual(valid);
    expect(Object.keys(result.value ?? {})).toEqual(['email', 'firstName', 'lastName', 'age']);
  });

  it('treats an absent or null age as no age', () => {
    expect(validateUserInput({ ...valid, age: undefined }).value).toEqual({ email: valid.email, firstName: 'Ada', lastName: 'Lovelace' });
    expect(validateUserInput({ ...valid, age: null }).value).not.toHaveProperty('age');
  });

  it.each([null, [], [valid], 'x', 42, true, undefined])('rejects a body that is not a JSON object: %j', (body) => {
    expect(validateUserInput(body)).toEqual({ value: undefined, violations: [{ field: 'body', message: 'must be a JSON object' }] });
  });

  it('lists every violation at once, never only the first', () => {
    const result = validateUserInput({ email: 'not-an-email', firstName: 'A', lastName: '', age: 17 });
    expect(result.value).toBeUndefined();
    expect(result.violations.map((v) => v.field)).toEqual(['email', 'firstName', 'lastName', 'age']);
  });

  it('reports missing required fields together', () => {
    expect(validateUserInput({})).toEqual({
      value: undefined,
      violations: [
        { field: 'email', message: 'is required' },
        { field: 'firstName', message: 'is required' },
        { field: 'lastName', message: 'is required' },
      ],
    });
  });

  it.each([
    ['plain', 'invalid-email'],
    ['no domain dot', 'a@localhost'],
    ['two ats', 'a@b@c.io'],
    ['space', 'a b@c.io'],
    ['leading dot', '.a@c.io'],
    ['double dot', 'a..b@c.io'],
    ['trailing hyphen label', 'a@c-.io'],
    ['empty', ''],
    ['too long', `${'a'.repeat(64)}@${'b'.repeat(190)}.com`],
    ['long local', `${'a'.repeat(65)}@c.io`],
  ])('rejects the email %s', (_name, email) => {
    expect(fields({ ...valid, email })).toEqual(['email']);
  });

  it.each(['a@b.co', 'first.last+tag@sub.example.org', "o'neil@x-y.io", `${'a'.repeat(64)}@example.com`])(
    'accepts the email %s',
    (email) => {
      expect(fields({ ...valid, email })).toEqual([]);
    },
  );

  it('rejects a non-string email and caps the length at 254', () => {
    expect(validateUserInput({ ...valid, email: 5 }).violations).toEqual([{ field: 'email', message: 'must be a string' }]);
    const long = `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`;
    expect(long.length).toBe(255);
    expect(validateUserInput({ ...valid, email: long }).violations[0]?.message).toBe('size must be at most 254');
  });

  it('enforces firstName 2..50 and lastName 1..50 in code points', () => {
    expect(fields({ ...valid, firstName: 'Al' })).toEqual([]);
    expect(fields({ ...valid, firstName: 'A' })).toEqual(['firstName']);
    expect(fields({ ...valid, firstName: 'a'.repeat(50), lastName: 'b'.repeat(50) })).toEqual([]);
    expect(fields({ ...valid, firstName: 'a'.repeat(51), lastName: 'b'.repeat(51) })).toEqual(['firstName', 'lastName']);
    expect(fields({ ...valid, lastName: 'X' })).toEqual([]);
    // 50 astral characters are 100 UTF-16 units but 50 code points.
    expect(fields({ ...valid, firstName: '😀'.repeat(50) })).toEqual([]);
    expect(fields({ ...valid, firstName: 'x'.repeat(1_000_000) })).toEqual(['firstName']);
  });

  it('rejects blank, non-string and control-character names', () => {
    expect(validateUserInput({ ...valid, lastName: '' }).violations).toEqual([{ field: 'lastName', message: 'must not be blank' }]);
    expect(fields({ ...valid, firstName: '   ' })).toEqual(['firstName']);
    expect(fields({ ...valid, firstName: 42, lastName: ['x'] })).toEqual(['firstName', 'lastName']);
    expect(fields({ ...valid, firstName: 'Ad\u0000a' })).toEqual(['firstName']);
    expect(fields({ ...valid, lastName: 'Lo\ud800ve' })).toEqual(['lastName']);
  });

  it.each([
    [17, 'must be between 18 and 100'],
    [101, 'must be between 18 and 100'],
    [-1, 'must be between 18 and 100'],
    [30.5, 'must be an integer'],
    ['30', 'must be an integer'],
    [Infinity, 'must be an integer'],
    [JSON.parse('1e400') as number, 'must be an integer'],
    [Number.NaN, 'must be an integer'],
    [true, 'must be an integer'],
  ])('rejects age %j', (age, message) => {
    expect(validateUserInput({ ...valid, age }).violations).toEqual([{ field: 'age', message }]);
  });

  it.each([18, 100, 18.0])('accepts age %j', (age) => {
    expect(validateUserInput({ ...valid, age }).value?.age).toBe(age);
  });

  it('ignores __proto__ and constructor payloads and leaves Object.prototype clean', () => {
    const body = JSON.parse(
      '{"__proto__":{"polluted":1,"isAdmin":true},"constructor":{"prototype":{"polluted":2}},' +
        '"email":"ada@example.com","firstName":"Ada","lastName":"Lovelace"}',
    ) as unknown;
    const result = validateUserInput(body);
    expect(result.violations).toEqual([]);
    expect(Object.keys(result.value ?? {})).toEqual(['email', 'firstName', 'lastName']);
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('never reads fields through the prototype chain', () => {
    const body = Object.create({ email: 'inherited@example.com', firstName: 'In', lastName: 'Herited' }) as object;
    expect(fields(body)).toEqual(['email', 'firstName', 'lastName']);
  });
});

describe('mergePatchUserInput (RFC 7396)', () => {
  const current = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36 };

  it('replaces given members and keeps the others', () => {
    expect(mergePatchUserInput(current, { firstName: 'Augusta' }).value).toEqual({ ...current, firstName: 'Augusta' });
  });

  it('removes a member given as null', () => {
    expect(mergePatchUserInput(current, { age: null }).value).toEqual({ email: current.email, firstName: 'Ada', lastName: 'Lovelace' });
  });

  it('validates the merged result like a PUT body', () => {
    const result = mergePatchUserInput(current, { email: null, firstName: 'A', age: 12 });
    expect(result.violations.map((v) => v.field)).toEqual(['email', 'firstName', 'age']);
    expect(result.violations[0]).toEqual({ field: 'email', message: 'is required' });
  });

  it('an object member replaces a scalar and fails its type check', () => {
    expect(mergePatchUserInput(current, { lastName: { x: 1 } }).violations).toEqual([{ field: 'lastName', message: 'must be a string' }]);
  });

  it('an empty patch changes nothing; unknown and server-owned members are ignored', () => {
    expect(mergePatchUserInput(current, {}).value).toEqual(current);
    expect(mergePatchUserInput(current, { id: 7, roles: ['ADMIN'], createdAt: 'x', other: 1 }).value).toEqual(current);
  });

  it.each([null, [], 'x', 3])('rejects a non-object patch %j', (patch) => {
    expect(mergePatchUserInput(current, patch).violations).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('is immune to __proto__ members', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true},"age":40}') as unknown;
    const result = mergePatchUserInput(current, patch);
    expect(result.value).toEqual({ ...current, age: 40 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('validateVariantInput and splitVariantName', () => {
  it('accepts name and email', () => {
    expect(validateVariantInput({ name: 'Grace Hopper', email: 'grace@example.com', id: 5 })).toEqual({
      value: { name: 'Grace Hopper', email: 'grace@example.com' },
      violations: [],
    });
  });

  it('lists every violation', () => {
    expect(validateVariantInput({ name: '', email: 'nope' }).violations.map((v) => v.field)).toEqual(['name', 'email']);
    expect(validateVariantInput({}).violations.map((v) => v.field)).toEqual(['name', 'email']);
    expect(validateVariantInput({ name: 'x'.repeat(102), email: 'a@b.io' }).violations.map((v) => v.field)).toEqual(['name']);
    expect(validateVariantInput({ name: 'x'.repeat(101), email: 'a@b.io' }).violations).toEqual([]);
    expect(validateVariantInput([]).violations).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });

  it('splits the first word from the rest; one word fills both', () => {
    expect(splitVariantName('Grace Brewster Hopper')).toEqual({ firstName: 'Grace', lastName: 'Brewster Hopper' });
    expect(splitVariantName('  Grace   Hopper ')).toEqual({ firstName: 'Grace', lastName: 'Hopper' });
    expect(splitVariantName('Cher')).toEqual({ firstName: 'Cher', lastName: 'Cher' });
  });
});

describe('helpers', () => {
  it('codePointLength counts astral characters once and lone surrogates once', () => {
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2);
    expect(codePointLength('')).toBe(0);
  });

  it('isValidEmail is linear on adversarial input', () => {
    // Would take exponential time with a nested-quantifier pattern; here it is one pass.
    expect(isValidEmail(`${'a.'.repeat(120)}@${'b-'.repeat(60)}`)).toBe(false);
  });
});

/**
 * The HTTP entity classes against the domain validation: every sample gets the same verdict,
 * the same fields and the same messages from the pipeline's validator (`compileValidator(Class)`,
 * what the VALIDATION slot runs) as from the domain's (what jobs and tests call without HTTP), and
 * the same verdict from the class's schema in the OpenAPI document (Ajv, JSON Schema 2020-12).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Application, buildOpenApi, compileValidator, PATCH, Path, POST, PUT } from '@jaxrs-node/pipeline';
import { validateOrderInput, validateStatusValue } from '../../src/domain/orders/validation.js';
import type { UserInput as DomainUserInput } from '../../src/domain/users/model.js';
import { mergePatchUserInput, validateUserInput, validateVariantInput } from '../../src/domain/users/validation.js';
import { NewOrder, OrderLine, OrderStatusChange } from '../../src/http/entities/orders.js';
import { UserInput, UserPatch, VariantUserInput } from '../../src/http/entities/users.js';
import { schemaTools } from '../helpers/openapi-contract.js';

type Issue = { field: string; message: string };

@Path('/probe')
class Probe {
  @POST('user') user(_body: UserInput): void {}
  @PATCH('patch') patch(_body: UserPatch): void {}
  @POST('variant') variant(_body: VariantUserInput): void {}
  @POST('order') order(_body: NewOrder): void {}
  @PUT('status') status(_body: OrderStatusChange): void {}
}

const doc = buildOpenApi(new Application({ resources: [Probe] }), { info: { title: 'probe', version: '1' } });
const check = (await schemaTools()).schemaChecker(doc);
const documented = (name: string, value: unknown): boolean => check({ $ref: `#/components/schemas/${name}` }, value);

/** The pipeline's violations as the service's error body shows them: plain fields, `body` for the entity. */
function pipeline(type: Function, value: unknown): Issue[] {
  const validate = compileValidator(type);
  if (validate === undefined) throw new Error(`${type.name} has no constraints`);
  return validate(value).map(({ field, message }) => ({ field: field === '' ? 'body' : field, message }));
}

const plain = (issues: readonly Issue[]): Issue[] => issues.map(({ field, message }) => ({ field, message }));

/** Samples a JSON body can carry (Infinity, what `1e400` parses to, cannot be written back). */
const isJson = (value: unknown): boolean => isDeepStrictEqual(JSON.parse(JSON.stringify(value) ?? 'null'), value);

const valid = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };
const emoji = '\u{1F600}';
const longestEmail = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;

/** Create and replace bodies, and every rule of SPEC "User": each should pass or fail as the domain says. */
const userSamples: [string, unknown][] = [
  ['the minimum', valid],
  ['ages 18 and 100, and null', { ...valid, age: 18 }],
  ['age 100', { ...valid, age: 100 }],
  ['age null (no age)', { ...valid, age: null }],
  ['unknown and server-owned fields (ignored)', { ...valid, id: 7, roles: ['ADMIN'], status: 'X', extra: { a: 1 } }],
  ['the longest email (254)', { ...valid, email: longestEmail }],
  ['names at their bounds, in code points', { ...valid, firstName: emoji.repeat(50), lastName: 'L' }],
  ['a name with inner spaces and accents', { ...valid, firstName: 'Zoë Ann', lastName: "O'Neil" }],
  ['nothing at all', {}],
  ['null fields', { email: null, firstName: null, lastName: null, age: null }],
  ['an email of the wrong type', { ...valid, email: 42 }],
  ['an email without @', { ...valid, email: 'not-an-email' }],
  ['an email without a dot in the domain', { ...valid, email: 'a@b' }],
  ['an email with a quoted local part', { ...valid, email: '"a b"@example.com' }],
  ['an email with a 65-character local part', { ...valid, email: `${'a'.repeat(65)}@example.com` }],
  ['an email of 255 characters', { ...valid, email: `${longestEmail}d` }],
  ['a one-letter first name', { ...valid, firstName: 'A' }],
  ['an empty last name', { ...valid, lastName: '' }],
  ['a blank last name', { ...valid, lastName: '   ' }],
  ['a blank name of control characters', { ...valid, lastName: '\t\n' }],
  ['a 51-character first name', { ...valid, firstName: 'x'.repeat(51) }],
  ['51 emoji', { ...valid, firstName: emoji.repeat(51) }],
  ['a NUL in a name', { ...valid, firstName: 'Ab\u0000c' }],
  ['DEL in a name', { ...valid, lastName: 'Ab\u007fc' }],
  ['a lone surrogate in a name', { ...valid, firstName: 'Ab\ud800c' }],
  ['too short and a control character', { ...valid, firstName: 'A\u0000' }],
  ['a name of the wrong type', { ...valid, firstName: 5, lastName: ['x'] }],
  ['age 17', { ...valid, age: 17 }],
  ['age 101', { ...valid, age: 101 }],
  ['age 30.5', { ...valid, age: 30.5 }],
  ['age "30"', { ...valid, age: '30' }],
  ['age true', { ...valid, age: true }],
  ['age 1e400', { ...valid, age: Number.POSITIVE_INFINITY }],
  ['all four wrong', { email: 42, firstName: 'x'.repeat(51), lastName: '   ', age: 101 }],
];

const notObjects: [string, unknown][] = [
  ['an array', [valid]],
  ['a string', 'text'],
  ['a number', 42],
  ['null', null],
];

describe('UserInput (POST /api/users, PUT /api/users/{id}) and validateUserInput', () => {
  it.each(userSamples)('%s: the same violations, and the document agrees', (_name, body) => {
    const domain = plain(validateUserInput(body).violations);
    expect(pipeline(UserInput, body)).toEqual(domain);
    if (isJson(body)) expect(documented('UserInput', body)).toBe(domain.length === 0);
  });

  it.each(notObjects)('%s: both reject the body as a whole', (_name, body) => {
    expect(pipeline(UserInput, body).map((v) => v.field)).toEqual(['body']);
    expect(validateUserInput(body).violations.map((v) => v.field)).toEqual(['body']);
    expect(documented('UserInput', body)).toBe(false);
  });

  it('the samples cover both verdicts and every field', () => {
    const failed = new Set(userSamples.flatMap(([, body]) => validateUserInput(body).violations.map((v) => v.field)));
    expect([...failed].sort()).toEqual(['age', 'email', 'firstName', 'lastName']);
    expect(userSamples.filter(([, body]) => validateUserInput(body).violations.length === 0).length).toBeGreaterThan(5);
  });
});

describe('UserPatch (PATCH /api/users/{id}) and mergePatchUserInput over a valid user', () => {
  const current: DomainUserInput = { email: 'cur@example.com', firstName: 'Cur', lastName: 'Rent', age: 40 };
  const patchSamples: [string, unknown][] = [
    ['an empty patch', {}],
    ['one field', { lastName: 'Byron' }],
    ['removing the age', { age: null }],
    ['unknown fields only', { id: 3, nickname: 'x' }],
    ['every field', { ...valid, age: 18 }],
    ['removing the email', { email: null }],
    ['removing both names and a bad age', { firstName: null, lastName: null, age: 17 }],
    ['a bad email and a short first name', { email: 'a@b', firstName: 'A' }],
    ['a blank last name', { lastName: ' ' }],
    ['a control character', { firstName: 'Ab\u001bc' }],
    ['wrong types', { email: 1, firstName: {}, lastName: false, age: '40' }],
  ];

  it.each(patchSamples)('%s: the same violations, and the document agrees', (_name, patch) => {
    const domain = plain(mergePatchUserInput(current, patch).violations);
    expect(pipeline(UserPatch, patch)).toEqual(domain);
    expect(documented('UserPatch', patch)).toBe(domain.length === 0);
  });

  it.each(notObjects)('%s: both reject the patch as a whole', (_name, patch) => {
    expect(pipeline(UserPatch, patch).map((v) => v.field)).toEqual(['body']);
    expect(mergePatchUserInput(current, patch).violations.map((v) => v.field)).toEqual(['body']);
  });
});

describe('VariantUserInput (POST /api/users/create) and validateVariantInput', () => {
  const variantSamples: [string, unknown][] = [
    ['a name and an email', { name: 'Vera Variant', email: 'vera@example.com' }],
    ['a one-letter name', { name: 'V', email: 'vera@example.com' }],
    ['a 101-character name', { name: 'x'.repeat(101), email: 'vera@example.com' }],
    ['a 102-character name', { name: 'x'.repeat(102), email: 'vera@example.com' }],
    ['nothing', {}],
    ['an empty name and a bad email', { name: '', email: 'not-an-email' }],
    ['a control character and a number', { name: 'Ve\u0000ra', email: 7 }],
  ];

  it.each(variantSamples)('%s: the same violations, and the document agrees', (_name, body) => {
    const domain = plain(validateVariantInput(body).violations);
    expect(pipeline(VariantUserInput, body)).toEqual(domain);
    expect(documented('VariantUserInput', body)).toBe(domain.length === 0);
  });
});

describe('NewOrder and OrderLine (POST /api/users/{id}/orders) and validateOrderInput', () => {
  const line = { productId: 1, quantity: 2 };
  const orderSamples: [string, unknown][] = [
    ['one line', { items: [line] }],
    ['100 lines', { items: Array.from({ length: 100 }, () => line) }],
    ['no items member', {}],
    ['items null', { items: null }],
    ['items not an array', { items: 'x' }],
    ['no lines', { items: [] }],
    ['101 lines', { items: Array.from({ length: 101 }, () => line) }],
    ['101 bad lines (the count alone is reported)', { items: Array.from({ length: 101 }, () => ({})) }],
  ];

  it.each(orderSamples)('%s: the same violations for the order, and the document agrees', (_name, body) => {
    const domain = plain(validateOrderInput(body).violations);
    expect(pipeline(NewOrder, body)).toEqual(domain);
    expect(documented('NewOrder', body)).toBe(domain.length === 0);
  });

  const lineSamples: [string, unknown][] = [
    ['a line', line],
    ['the bounds', { productId: Number.MAX_SAFE_INTEGER, quantity: 1000 }],
    ['extra members', { ...line, note: 'gift' }],
    ['an empty line', {}],
    ['zero quantity', { productId: 1, quantity: 0 }],
    ['1001 units', { productId: 1, quantity: 1001 }],
    ['product 0 and a fractional quantity', { productId: 0, quantity: 1.5 }],
    ['strings', { productId: '1', quantity: '2' }],
    ['nulls', { productId: null, quantity: null }],
    ['an unsafe product id', { productId: 2 ** 53, quantity: 1 }],
  ];

  it.each(lineSamples)('line with %s: the same violations (the domain checks lines, see domain/orders/validation.ts)', (_name, item) => {
    const domain = plain(validateOrderInput({ items: [item] }).violations).map((v) => ({
      ...v,
      field: v.field.replace(/^items\[0\]\./, ''),
    }));
    expect(pipeline(OrderLine, item)).toEqual(domain);
    expect(documented('OrderLine', item)).toBe(domain.length === 0);
    expect(documented('NewOrder', { items: [item] })).toBe(domain.length === 0);
  });

  it('a line that is not an object: the domain rejects it and so does the document', () => {
    for (const item of [1, 'x', null, [line]]) {
      expect(plain(validateOrderInput({ items: [item] }).violations)).toEqual([{ field: 'items[0]', message: 'must be a JSON object' }]);
      expect(documented('NewOrder', { items: [item] })).toBe(false);
    }
  });
});

describe('OrderStatusChange (PUT /api/users/{id}/orders/{orderId}/status) and validateStatusValue', () => {
  const statusSamples: [string, Record<string, unknown>][] = [
    ['PENDING', { status: 'PENDING' }],
    ['PROCESSING with another member', { status: 'PROCESSING', note: 'x' }],
    ['COMPLETED', { status: 'COMPLETED' }],
    ['no status', {}],
    ['null', { status: null }],
    ['lower case', { status: 'pending' }],
    ['a number', { status: 1 }],
  ];

  it.each(statusSamples)('%s: the same violations, and the document agrees', (_name, body) => {
    const domain = plain(validateStatusValue(body.status));
    expect(pipeline(OrderStatusChange, body)).toEqual(domain);
    expect(documented('OrderStatusChange', body)).toBe(domain.length === 0);
  });
});

describe('the document', () => {
  it('documents the request bodies from the classes, required fields and nullable age included', () => {
    const schemas = doc.components?.schemas as Record<string, { required?: string[]; properties: Record<string, { type?: unknown }> }>;
    expect(schemas.UserInput?.required).toEqual(['email', 'firstName', 'lastName']);
    expect(schemas.UserInput?.properties.age?.type).toEqual(['integer', 'null']);
    expect(schemas.UserPatch?.required).toBeUndefined();
    expect(schemas.NewOrder?.properties.items).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { $ref: '#/components/schemas/OrderLine' },
    });
    expect(schemas.OrderStatusChange?.required).toEqual(['status']);
  });
});

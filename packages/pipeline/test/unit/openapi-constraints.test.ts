/**
 * Round trip of every constraint decorator through the OpenAPI generator: a value the pipeline's
 * validator accepts is valid against the generated schema (JSON Schema 2020-12, Ajv), and a value
 * it rejects is invalid, so the document promises what the server checks.
 */
import { describe, expect, it } from 'vitest';
import {
  ArrayOf,
  compileValidator,
  defineConstraint,
  Email,
  IsInt,
  Max,
  Min,
  NotBlank,
  NotNull,
  Pattern,
  Size,
  Valid,
  type Constructor,
} from '../../src/index.js';
import { SchemaRegistry } from '../../src/features/openapi/schemas.js';
import { schemaChecker } from '../helpers/openapi-schema.js';

const Even = defineConstraint<number>({
  name: 'Even',
  message: 'must be even',
  accepts: (v) => typeof v === 'number',
  typeMessage: 'must be a number',
  check: (v) => v % 2 === 0,
  schema: { type: 'number', multipleOf: 2 },
});
const StartsWith = defineConstraint<string, [prefix: string]>({
  name: 'StartsWith',
  message: (p) => `must start with ${p}`,
  accepts: (v) => typeof v === 'string',
  check: (v, p) => v.startsWith(p),
  schema: (p) => ({ type: 'string', pattern: `^${p}` }),
});

class Address {
  @NotBlank() city!: string;
}

class Cases {
  @NotNull() notNull?: string;
  @NotBlank() notBlank?: string;
  @Size({ min: 2, max: 3 }) size?: string;
  @Size({ min: 2, max: 3 }) @ArrayOf(Number) sizedList?: number[];
  @Size({ min: 1 }) sizedAny?: unknown;
  @Min(1) min?: number;
  @Min(1, { exclusive: true }) minExclusive?: number;
  @Max(10) max?: number;
  @Max(10, { exclusive: true }) maxExclusive?: number;
  @IsInt() int?: number;
  @Min(0) @Max(5) @IsInt() bounded?: number;
  @Email() email?: string;
  @Pattern(/ORD-\d+/) pattern?: string;
  @Pattern(/ord-\d+/i) patternIgnoringCase?: string;
  @Valid() address?: Address;
  @Valid(Address) addresses?: Address[];
  @Even() even?: number;
  @StartsWith('ORD-') ref?: string;
}

/** Accepted and rejected values of each field (checked alone: the other fields absent, except required ones). */
const CASES: Record<string, { accepted: unknown[]; rejected: unknown[] }> = {
  notNull: { accepted: ['a', ''], rejected: [null, undefined] },
  notBlank: { accepted: ['a', ' a ', 'x\ny'], rejected: ['', '   ', '\t\n\u00a0\ufeff', null, undefined, 5] },
  size: { accepted: ['ab', 'abc', '😀😀', '😀😀😀', null, undefined], rejected: ['a', 'abcd', '😀', '😀😀😀😀'] },
  sizedList: { accepted: [[1, 2], [1, 2, 3], null], rejected: [[1], [1, 2, 3, 4]] },
  sizedAny: { accepted: ['a', [1], null], rejected: ['', []] },
  min: { accepted: [1, 1.5, 1e9, null], rejected: [0, 0.99, -1, 'a'] },
  minExclusive: { accepted: [1.01, 2], rejected: [1, 0] },
  max: { accepted: [10, -5, null], rejected: [10.5, 11, '1'] },
  maxExclusive: { accepted: [9.99], rejected: [10, 11] },
  int: { accepted: [3, -7, 0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, null], rejected: [1.5, 2 ** 53, -(2 ** 53), 'x', true] },
  bounded: { accepted: [0, 5, 3], rejected: [-1, 6, 2.5] },
  email: {
    accepted: ['a@b', 'first.last@example.com', `${'x'.repeat(64)}@b.c`, null],
    rejected: [
      'a',
      '@b',
      'a@',
      'a b@c.d',
      `${'x'.repeat(65)}@b.c`,
      `a@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(70)}`,
      7,
    ],
  },
  pattern: { accepted: ['ORD-1', 'ORD-123', null], rejected: ['xORD-1', 'ORD-', 'ORD-1x', 'ord-1', 1] },
  patternIgnoringCase: { accepted: ['ord-1', 'ORD-2', null], rejected: [1] },
  address: { accepted: [{ city: 'Paris' }, null, undefined], rejected: [{}, { city: ' ' }, 'Paris', [{ city: 'x' }]] },
  addresses: { accepted: [[], [{ city: 'a' }], null], rejected: [[{}], ['x'], { city: 'x' }] },
  even: { accepted: [2, 0, -4, null], rejected: [3, '2'] },
  ref: { accepted: ['ORD-7', null], rejected: ['X-7', 7] },
};

function harness(cls: Constructor): { validate: (v: object) => boolean; matches: (v: object) => boolean } {
  const registry = new SchemaRegistry();
  const ref = registry.ref(cls);
  const check = schemaChecker({ components: { schemas: registry.components } });
  const validator = compileValidator(cls)!;
  return { validate: (v) => validator(v).length === 0, matches: (v) => check(ref, v) };
}

describe('constraint decorators and their generated schemas agree', () => {
  const { validate, matches } = harness(Cases);
  // Required fields, present in every sample so only the field under test decides.
  const base = { notNull: 'x', notBlank: 'x' };

  for (const [field, { accepted, rejected }] of Object.entries(CASES)) {
    it(`${field}`, () => {
      for (const value of accepted) {
        const sample = { ...base, [field]: value };
        expect(validate(sample), `validator accepts ${JSON.stringify(value)}`).toBe(true);
        expect(matches(sample), `schema accepts ${JSON.stringify(value)}`).toBe(true);
      }
      for (const value of rejected) {
        const sample = { ...base, [field]: value };
        expect(validate(sample), `validator rejects ${JSON.stringify(value)}`).toBe(false);
        // A Pattern with flags other than `u` has no JSON Schema form: its schema only says "string".
        if (field === 'patternIgnoringCase') continue;
        expect(matches(sample), `schema rejects ${JSON.stringify(value)}`).toBe(false);
      }
    });
  }

  it('the entity itself must be an object', () => {
    for (const v of [null, [], 'x', 1]) {
      expect(compileValidator(Cases)!(v).length).toBeGreaterThan(0);
      expect(harness(Cases).matches(v as object)).toBe(false);
    }
  });

  it('required and nullable follow NotNull and NotBlank', () => {
    const registry = new SchemaRegistry();
    registry.ref(Cases);
    const schema = registry.components.Cases as { required: string[]; properties: Record<string, { type?: unknown }> };
    expect(schema.required).toEqual(['notNull', 'notBlank']);
    expect(schema.properties.notNull!.type).toBe('string');
    expect(schema.properties.size!.type).toEqual(['string', 'null']);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkConstraints,
  compileConstraintsCheck,
  interpretedValidator,
  type Violation,
} from '../../../src/features/validation/compile.js';
import { ownRules } from '../../../src/features/validation/constraints.js';
import {
  compileValidator,
  defineConstraint,
  Email,
  IsInt,
  Max,
  MAX_VALIDATION_DEPTH,
  MAX_VIOLATIONS,
  Min,
  NotBlank,
  NotNull,
  Pattern,
  Size,
  Valid,
  type Validator,
} from '../../../src/features/validation/index.js';

/**
 * The validator of a class is generated code (features/validation/generate.ts); the interpreter in
 * compile.ts runs where code generation from strings is disallowed. Both must list the same
 * violations, in the same order, with the same fields, messages and echoed values.
 */

function both(type: Function): { generated: Validator; interpreted: Validator } {
  const generated = compileValidator(type);
  const interpreted = interpretedValidator(type);
  if (generated === undefined || interpreted === undefined) throw new Error(`no validator for ${type.name}`);
  return { generated, interpreted };
}

const Even = defineConstraint<number>({
  name: 'Even',
  message: 'must be even',
  accepts: (v) => typeof v === 'number',
  typeMessage: 'must be a number',
  check: (v) => v % 2 === 0,
});
const Required = defineConstraint<unknown>({ name: 'Required', message: 'is required', checksAbsent: true, check: (v) => v !== undefined });
const StartsWith = defineConstraint<string, [prefix: string]>({
  name: 'StartsWith',
  message: (prefix) => `must start with "${prefix}"`,
  accepts: (v) => typeof v === 'string',
  typeMessage: 'must be a string',
  check: (v, prefix) => v.startsWith(prefix),
});

class Item {
  @NotNull() @Size({ min: 1, max: 3 }) name!: string;
  @IsInt() @Min(1) quantity?: number;
}

class Base {
  @NotNull() @Pattern(/ORD-\d+/) ref!: string;
  @Size({ max: 4 }) shared?: string;
}

/** Every constraint kind, inherited fields, custom constraints and the three nested shapes. */
class Everything extends Base {
  @NotNull() @Email() email!: string;
  @NotBlank() @Size({ min: 2, max: 5 }) name!: string;
  @IsInt() @Min(18) @Max(100) age?: number;
  @Min(0, { exclusive: true }) @Max(1, { exclusive: true }) ratio?: number;
  @Size({ max: 2 }) tags?: string[];
  @Even() @Required() count?: number;
  @StartsWith('x', { message: 'is not an x-code' }) code?: string;
  // Three guards with the same type message: a number gets "must be a string" once.
  @Size({ min: 1 }) @Pattern(/a+/) @NotBlank() @StartsWith('a') mixed?: string;
  @Valid() item?: Item;
  @Size({ min: 1 }) @Valid(Item) items?: Item[];
  @Size({ max: 1 }) @Valid(Item) either?: Item | Item[] | null;
  @Valid() next?: Everything;
  // A wrong-shape nested value is reported by the nested check, not by Size's type message.
  @Size({ min: 1 }) @Valid() sized?: Item;
}
// Inherited constraints add up (base first).
Size({ min: 2 })(Everything.prototype, 'shared');

// A small deterministic generator, so a failure names the seed and repeats.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const SCALARS: readonly unknown[] = [
  undefined,
  null,
  '',
  '   ',
  'a',
  'aa',
  'ab',
  'abcdef',
  'x1',
  'ORD-12',
  'ORD-',
  'ann@example.com',
  'not-an-address',
  '😀😀',
  'x'.repeat(300),
  0,
  0.5,
  1,
  2,
  17,
  18.5,
  30,
  101,
  -3,
  Infinity,
  Number.NaN,
  10n,
  true,
  false,
];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

function randomItem(rnd: () => number, depth: number): unknown {
  const r = rnd();
  if (r < 0.15 || depth > 3) return pick(rnd, SCALARS);
  if (r < 0.3) return [randomItem(rnd, depth + 1), randomItem(rnd, depth + 1)];
  return { name: pick(rnd, SCALARS), quantity: pick(rnd, SCALARS) };
}

const KEYS = ['ref', 'shared', 'email', 'name', 'age', 'ratio', 'tags', 'count', 'code', 'mixed'] as const;

function randomEverything(rnd: () => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const k of KEYS) {
    const r = rnd();
    if (r < 0.1) continue; // missing key
    o[k] = k === 'tags' && r < 0.5 ? ['a', 'b', 'c'].slice(0, Math.floor(rnd() * 4)) : pick(rnd, SCALARS);
  }
  if (rnd() < 0.6) o.item = randomItem(rnd, depth);
  if (rnd() < 0.6)
    o.items = rnd() < 0.8 ? Array.from({ length: Math.floor(rnd() * 4) }, () => randomItem(rnd, depth)) : randomItem(rnd, depth);
  if (rnd() < 0.6) o.either = randomItem(rnd, depth);
  if (rnd() < 0.5) o.sized = randomItem(rnd, depth);
  if (depth < 3 && rnd() < 0.3) o.next = randomEverything(rnd, depth + 1);
  return o;
}

describe('generated validators give the interpreter violations', () => {
  const { generated, interpreted } = both(Everything);

  it('uses generated code where code generation is allowed', () => {
    // The generated root function calls the generated object check by name (generate.ts).
    expect(generated.toString()).toContain('check(value');
    expect(interpreted.toString()).not.toContain('check(value');
  });

  it('the documented example: every constraint kind, one violation each, in declaration order', () => {
    const body = {
      ref: 'ORD-x',
      shared: 'abcde',
      email: 'not-an-address',
      name: ' ',
      age: 17.5,
      ratio: 1,
      tags: ['a', 'b', 'c'],
      count: 3,
      code: 'y',
      mixed: 7,
      item: { name: '', quantity: 0 },
      items: [],
      either: [{ name: 'abcd' }, 'x'],
      sized: [{ name: 'a' }],
    };
    const expected = [
      { field: 'ref', message: 'must match "ORD-\\d+"', value: 'ORD-x' },
      { field: 'shared', message: 'size must be at most 4', value: 'abcde' },
      { field: 'email', message: 'must be a well-formed email address', value: 'not-an-address' },
      { field: 'name', message: 'must not be blank', value: ' ' },
      { field: 'name', message: 'size must be between 2 and 5', value: ' ' },
      { field: 'age', message: 'must be an integer', value: 17.5 },
      { field: 'age', message: 'must be greater than or equal to 18', value: 17.5 },
      { field: 'ratio', message: 'must be less than 1', value: 1 },
      { field: 'tags', message: 'size must be at most 2' },
      { field: 'count', message: 'must be even', value: 3 },
      { field: 'code', message: 'is not an x-code', value: 'y' },
      { field: 'mixed', message: 'must be a string or an array', value: 7 },
      { field: 'mixed', message: 'must be a string', value: 7 },
      { field: 'item.name', message: 'size must be between 1 and 3', value: '' },
      { field: 'item.quantity', message: 'must be greater than or equal to 1', value: 0 },
      { field: 'items', message: 'size must be at least 1' },
      { field: 'either', message: 'size must be at most 1' },
      { field: 'either[0].name', message: 'size must be between 1 and 3', value: 'abcd' },
      { field: 'either[1]', message: 'must be an object', value: 'x' },
      { field: 'sized', message: 'must be an object' },
    ];
    expect(generated(body)).toStrictEqual(expected);
    expect(interpreted(body)).toStrictEqual(expected);
    expect(generated({})).toStrictEqual([
      { field: 'ref', message: 'must not be null' },
      { field: 'email', message: 'must not be null' },
      { field: 'name', message: 'must not be blank' },
      { field: 'count', message: 'is required' },
      { field: 'mixed', message: 'must not be blank' },
    ]);
  });

  it('agrees on 3 000 random entities', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomEverything(prng(seed), 0);
      expect(generated(value), `seed ${seed}`).toStrictEqual(interpreted(value));
    }
  });

  it('agrees on values that are not objects', () => {
    for (const value of [...SCALARS, [], [{}], () => 1]) expect(generated(value)).toStrictEqual(interpreted(value));
  });

  it('agrees on prototype keys, null-prototype objects and class instances with getters', () => {
    const parsed = JSON.parse('{"__proto__": {"email": "a@b.co", "ref": "ORD-1"}, "name": "Ann"}') as object;
    const nullProto = Object.assign(Object.create(null) as object, { ref: 'ORD-1', email: 'a@b.co', name: 'Ann', count: 2 });
    const inherited = Object.create({ ref: 'ORD-1', email: 'a@b.co' }) as Record<string, unknown>;
    inherited.name = 'Ann';
    inherited.count = 2;
    class Instance {
      get ref(): string {
        return 'ORD-7';
      }
      email = 'a@b.co';
      name = 'x';
    }
    for (const value of [parsed, nullProto, inherited, new Instance()]) expect(generated(value)).toStrictEqual(interpreted(value));
    expect(generated(parsed).map((v) => v.field)).toEqual(['ref', 'email', 'count', 'mixed']);
    expect(generated(new Instance()).map((v) => v.field)).toEqual(['name', 'count', 'mixed']);
  });

  it('agrees at the depth bound and at the bound on the number of violations', () => {
    let deep: Record<string, unknown> = { ref: 'ORD-1', email: 'a@b.co', name: 'Ann', count: 2 };
    for (let i = 0; i < MAX_VALIDATION_DEPTH + 5; i++) deep = { ref: 'ORD-1', email: 'a@b.co', name: 'Ann', count: 2, next: deep };
    expect(generated(deep)).toStrictEqual(interpreted(deep));
    expect(generated(deep).at(-1)?.message).toBe(`must not be nested more than ${MAX_VALIDATION_DEPTH} levels deep`);
    const many = { items: Array.from({ length: 3 * MAX_VIOLATIONS }, () => ({ name: '', quantity: 0.5 })) };
    expect(generated(many)).toStrictEqual(interpreted(many));
    expect(generated(many)).toHaveLength(MAX_VIOLATIONS + 1);
  });
});

describe('generated parameter checks give checkConstraints violations', () => {
  it('for every constraint list of the class above and every value', () => {
    const lists = [Base, Everything].flatMap((cls) => [...(ownRules(cls)?.values() ?? [])].map((r) => r.constraints));
    expect(lists.length).toBeGreaterThan(10);
    const values = [...SCALARS, [], ['a', 'b', 'c'], {}, { name: 'a' }];
    for (const cs of lists) {
      const check = compileConstraintsCheck(cs, 'query.x');
      for (const value of values) {
        // A violation already listed (another parameter's) never hides this one's type message.
        const generated: Violation[] = [{ field: 'query.y', message: 'must be a string' }];
        const interpreted: Violation[] = [{ field: 'query.y', message: 'must be a string' }];
        check(value, generated);
        checkConstraints(cs, value, '', 'query.x', false, interpreted);
        expect(generated, `${cs.map((c) => c.kind).join(' ')} on ${String(value)}`).toStrictEqual(interpreted);
      }
    }
  });
});

describe('generated code never runs user strings', () => {
  it('keeps property names and messages with quotes, backticks and code as data', () => {
    const key = "a'); throw new Error('injected'); ('`${1}\\";
    class Odd {}
    NotNull({ message: "'); throw new Error('message'); ('`${2}\\" })(Odd.prototype, key);
    Size({ min: 2 })(Odd.prototype, '__proto__');
    const { generated, interpreted } = both(Odd);
    const expected = [{ field: key, message: "'); throw new Error('message'); ('`${2}\\" }];
    expect(generated({})).toStrictEqual(expected);
    expect(interpreted({})).toStrictEqual(expected);
    const own = JSON.parse('{"__proto__": "x"}') as object;
    expect(generated(own)).toStrictEqual(interpreted(own));
    expect(generated(own).map((v) => v.field)).toEqual([key, '__proto__']);
  });
});

describe('where code generation from strings is disallowed', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('falls back to the interpreter with the same violations', () => {
    class Refused {
      @NotNull() @Email() email!: string;
      @Valid(Item) items?: Item[];
    }
    // What `new Function` does under --disallow-code-generation-from-strings or a CSP.
    vi.spyOn(globalThis, 'Function').mockImplementation(function refused() {
      throw new EvalError('Code generation from strings disallowed for this context');
    });
    const validate = compileValidator(Refused);
    vi.restoreAllMocks();
    expect(validate).toBeDefined();
    expect(validate!.toString()).not.toContain('check(value');
    expect(validate!({ email: 'x', items: [{ name: 'abcd' }, 3] })).toStrictEqual([
      { field: 'email', message: 'must be a well-formed email address', value: 'x' },
      { field: 'items[0].name', message: 'size must be between 1 and 3', value: 'abcd' },
      { field: 'items[1]', message: 'must be an object', value: 3 },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../../src/core/http/errors.js';
import {
  compileValidator,
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
  ValidationError,
  type Validator,
} from '../../../src/features/validation/index.js';
import { validateOrThrow } from '../../../src/features/validation/validation-error.js';

function validatorOf(type: Function): Validator {
  const v = compileValidator(type);
  if (v === undefined) throw new Error(`no validator for ${type.name}`);
  return v;
}

class CreateUser {
  @NotNull() @Email() email!: string;
  @NotBlank() @Size({ min: 2, max: 50 }) firstName!: string;
  @NotBlank() @Size({ max: 50 }) lastName!: string;
  @IsInt() @Min(18) @Max(100) age?: number;
}

const good = { email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', age: 30 };

describe('single constraints', () => {
  const validate = validatorOf(CreateUser);

  it('accepts a valid entity with no violations', () => {
    expect(validate(good)).toEqual([]);
    expect(validate({ ...good, age: undefined })).toEqual([]);
  });

  it('NotNull rejects a missing key and null', () => {
    expect(validate({ ...good, email: undefined })).toEqual([{ field: 'email', message: 'must not be null' }]);
    expect(validate({ ...good, email: null })).toEqual([{ field: 'email', message: 'must not be null', value: null }]);
  });

  it('NotBlank rejects missing, empty and whitespace-only strings, and non-strings', () => {
    expect(validate({ ...good, lastName: '' })).toEqual([{ field: 'lastName', message: 'must not be blank', value: '' }]);
    expect(validate({ ...good, lastName: ' \t\n' })).toEqual([{ field: 'lastName', message: 'must not be blank', value: ' \t\n' }]);
    expect(validate({ ...good, lastName: undefined })).toEqual([{ field: 'lastName', message: 'must not be blank' }]);
    expect(validate({ ...good, lastName: 7 }).map((v) => v.message)).toEqual(['must be a string', 'must be a string or an array']);
  });

  it('Size checks strings in code points and reports its bounds', () => {
    expect(validate({ ...good, firstName: 'A' })).toEqual([{ field: 'firstName', message: 'size must be between 2 and 50', value: 'A' }]);
    expect(validate({ ...good, firstName: 'x'.repeat(51) })[0]?.message).toBe('size must be between 2 and 50');
    expect(validate({ ...good, firstName: 'x'.repeat(50) })).toEqual([]);
    // 50 emoji are 100 UTF-16 units but 50 characters to a user.
    expect(validate({ ...good, firstName: '😀'.repeat(50) })).toEqual([]);
    expect(validate({ ...good, firstName: '😀'.repeat(51) })[0]?.message).toBe('size must be between 2 and 50');
    expect(validate({ ...good, firstName: '😀' })[0]?.message).toBe('size must be between 2 and 50');
    expect(validate({ ...good, lastName: 'y'.repeat(51) })[0]?.message).toBe('size must be at most 50');
  });

  it('Size checks array lengths', () => {
    class Tags {
      @Size({ min: 1, max: 2 }) tags?: string[];
    }
    const v = validatorOf(Tags);
    expect(v({ tags: ['a'] })).toEqual([]);
    expect(v({ tags: [] })).toEqual([{ field: 'tags', message: 'size must be between 1 and 2' }]);
    expect(v({ tags: ['a', 'b', 'c'] })[0]?.message).toBe('size must be between 1 and 2');
    expect(v({ tags: {} })[0]?.message).toBe('must be a string or an array');
  });

  it('Min, Max and IsInt check numbers, bigints and reject non-finite or non-numbers once', () => {
    expect(validate({ ...good, age: 17 })).toEqual([{ field: 'age', message: 'must be greater than or equal to 18', value: 17 }]);
    expect(validate({ ...good, age: 101 })).toEqual([{ field: 'age', message: 'must be less than or equal to 100', value: 101 }]);
    expect(validate({ ...good, age: 18 })).toEqual([]);
    expect(validate({ ...good, age: 100 })).toEqual([]);
    expect(validate({ ...good, age: 30.5 })).toEqual([{ field: 'age', message: 'must be an integer', value: 30.5 }]);
    expect(validate({ ...good, age: 40n })).toEqual([]);
    expect(validate({ ...good, age: 4n })).toEqual([{ field: 'age', message: 'must be greater than or equal to 18' }]);
    // Three numeric constraints, one type message.
    expect(validate({ ...good, age: '30' })).toEqual([{ field: 'age', message: 'must be a finite number', value: '30' }]);
    expect(validate({ ...good, age: Infinity })[0]?.message).toBe('must be a finite number');
    expect(validate({ ...good, age: Number.NaN })[0]?.message).toBe('must be a finite number');
    expect(validate({ ...good, age: 2 ** 60 })[0]?.message).toBe('must be an integer');
  });

  it('Min and Max support exclusive bounds', () => {
    class Line {
      @Min(0, { exclusive: true }) quantity?: number;
      @Max(1, { exclusive: true }) ratio?: number;
    }
    const v = validatorOf(Line);
    expect(v({ quantity: 0.5, ratio: 0.99 })).toEqual([]);
    expect(v({ quantity: 0, ratio: 1 }).map((x) => x.message)).toEqual(['must be greater than 0', 'must be less than 1']);
  });

  it('Email accepts ordinary addresses and rejects malformed or oversized ones', () => {
    for (const ok of ['a@b.co', 'first.last+tag@sub.example.org', 'x@localhost']) {
      expect(validate({ ...good, email: ok }), ok).toEqual([]);
    }
    for (const bad of [
      'invalid-email',
      '@example.com',
      'a@',
      'a b@example.com',
      'a@-x.com',
      'a@x..com',
      `${'a'.repeat(65)}@x.com`,
      `a@${'b'.repeat(250)}.com`,
    ]) {
      expect(validate({ ...good, email: bad })[0]?.message, bad).toBe('must be a well-formed email address');
    }
    expect(validate({ ...good, email: 5 })[0]?.message).toBe('must be a string');
  });

  it('Email stays fast on adversarial input', () => {
    const started = performance.now();
    validate({ ...good, email: `a@${'a-'.repeat(120)}!` });
    validate({ ...good, email: `${'a'.repeat(64)}@${`${'a'.repeat(61)}.`.repeat(3)}-` });
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('Pattern matches the whole string and accepts a message string', () => {
    class Order {
      @Pattern(/ORD-\d+/g, 'must look like ORD-123') orderNumber?: string;
      @Pattern('[A-Z]+') status?: string;
    }
    const v = validatorOf(Order);
    expect(v({ orderNumber: 'ORD-42', status: 'PENDING' })).toEqual([]);
    // The stripped g flag: a second call must give the same answer.
    expect(v({ orderNumber: 'ORD-42' })).toEqual([]);
    expect(v({ orderNumber: 'xORD-42', status: 'pending' })).toEqual([
      { field: 'orderNumber', message: 'must look like ORD-123', value: 'xORD-42' },
      { field: 'status', message: 'must match "[A-Z]+"', value: 'pending' },
    ]);
    expect(v({ orderNumber: 42 })[0]?.message).toBe('must be a string');
  });

  it('custom messages replace the default ones', () => {
    class M {
      @NotNull({ message: 'email is required' }) email?: string;
      @Size({ min: 2, message: 'too short' }) name?: string;
      @Min(18, { message: 'adults only' }) age?: number;
      @Email({ message: 'bad mail' }) alt?: string;
    }
    expect(validatorOf(M)({ name: 'A', age: 3, alt: 'x' }).map((v) => v.message)).toEqual([
      'email is required',
      'too short',
      'adults only',
      'bad mail',
    ]);
  });

  it('all constraints but NotNull/NotBlank pass on null and undefined', () => {
    class Opt {
      @Size({ min: 2 }) @Email() @Pattern(/x/) @Min(1) @Max(2) @IsInt() a?: unknown;
    }
    const v = validatorOf(Opt);
    expect(v({})).toEqual([]);
    expect(v({ a: null })).toEqual([]);
  });
});

describe('all violations and the entity shape', () => {
  const validate = validatorOf(CreateUser);

  it('lists every violation in declaration order, not only the first', () => {
    expect(validate({ email: 'nope', firstName: 'A', lastName: '', age: 12 })).toEqual([
      { field: 'email', message: 'must be a well-formed email address', value: 'nope' },
      { field: 'firstName', message: 'size must be between 2 and 50', value: 'A' },
      { field: 'lastName', message: 'must not be blank', value: '' },
      { field: 'age', message: 'must be greater than or equal to 18', value: 12 },
    ]);
    expect(validate({}).map((v) => `${v.field}: ${v.message}`)).toEqual([
      'email: must not be null',
      'firstName: must not be blank',
      'lastName: must not be blank',
    ]);
  });

  it('gives one violation with field "" for an entity that is not an object', () => {
    for (const bad of [null, undefined, 'text', 42, [], [good]]) {
      expect(validate(bad), JSON.stringify(bad) ?? 'undefined').toEqual([
        expect.objectContaining({ field: '', message: 'must be an object' }),
      ]);
    }
  });

  it('echoes only short scalar values', () => {
    expect(validate({ ...good, firstName: 'x'.repeat(300) })[0]).toEqual({ field: 'firstName', message: 'size must be between 2 and 50' });
    expect(validate({ ...good, firstName: { a: 1 } })[0]).not.toHaveProperty('value');
  });

  it('ignores prototype keys and inherited properties of JSON input', () => {
    class Proto {
      @NotNull() constructor_?: string;
    }
    // Applied by hand: TypeScript will not type a `toString?: string` field on a class.
    NotNull()(Proto.prototype, 'toString');
    NotNull()(Proto.prototype, 'isAdmin');
    const v = validatorOf(Proto);
    const parsed = JSON.parse('{"__proto__": {"isAdmin": true, "toString": "x"}, "constructor_": "c"}') as object;
    expect(v(parsed).map((x) => x.field)).toEqual(['toString', 'isAdmin']);
    const polluted = Object.create({ isAdmin: true, toString: 'x' }) as Record<string, unknown>;
    polluted.constructor_ = 'c';
    // A non-plain prototype is a class instance: normal reads apply, so this one passes.
    expect(v(polluted)).toEqual([]);
    const nullProto = Object.assign(Object.create(null) as object, { constructor_: 'c', toString: 'x', isAdmin: false });
    expect(v(nullProto)).toEqual([]);
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(validate(JSON.parse('{"__proto__": {"email": "a@b.co"}, "firstName": "Ann", "lastName": "Lee"}')).map((x) => x.field)).toEqual([
      'email',
    ]);
  });
});

describe('nesting', () => {
  class City {
    @NotBlank() name!: string;
  }
  class Address {
    @NotBlank() street!: string;
    @Valid() city!: City;
  }
  class Product {
    @NotBlank() name!: string;
  }
  class Item {
    @Valid() @NotNull() product!: Product;
    @Min(0, { exclusive: true }) quantity!: number;
  }
  class Order {
    @Valid() address?: Address;
    @Size({ min: 1 }) @Valid(Item) items!: Item[];
  }
  const validate = validatorOf(Order);
  const item = { product: { name: 'pen' }, quantity: 1 };

  it('reports dotted paths for nested objects', () => {
    expect(validate({ address: { street: '', city: { name: ' ' } }, items: [item] })).toEqual([
      { field: 'address.street', message: 'must not be blank', value: '' },
      { field: 'address.city.name', message: 'must not be blank', value: ' ' },
    ]);
  });

  it('reports bracket paths for array elements and checks every element', () => {
    const items = [item, { product: { name: '' }, quantity: 0 }, item, { quantity: 2 }, 5, null];
    expect(validate({ items }).map((v) => `${v.field}: ${v.message}`)).toEqual([
      'items[1].product.name: must not be blank',
      'items[1].quantity: must be greater than 0',
      'items[3].product: must not be null',
      'items[4]: must be an object',
      'items[5]: must be an object',
    ]);
    expect(validate({ items: [] })).toEqual([{ field: 'items', message: 'size must be at least 1' }]);
  });

  it('rejects the wrong shape for a nested value', () => {
    expect(validate({ address: [{ street: 'x' }], items: [item] })).toEqual([{ field: 'address', message: 'must be an object' }]);
    expect(validate({ address: 'Main St', items: [item] })).toEqual([{ field: 'address', message: 'must be an object', value: 'Main St' }]);
    expect(validate({ items: { 0: item } })).toEqual([{ field: 'items', message: 'must be an array' }]);
    expect(validate({ address: null, items: [item] })).toEqual([]);
  });

  it('decides by shape when the declared type is unknown (interface or union)', () => {
    class Loose {
      @Valid(Product) thing?: Product | Product[] | null;
    }
    const v = validatorOf(Loose);
    expect(v({ thing: { name: '' } })).toEqual([{ field: 'thing.name', message: 'must not be blank', value: '' }]);
    expect(v({ thing: [{ name: 'a' }, { name: '' }] })).toEqual([{ field: 'thing[1].name', message: 'must not be blank', value: '' }]);
  });

  it('bounds the depth of self-referencing types', () => {
    class Node {
      @NotNull() id?: number;
      @Valid() next?: Node;
    }
    const v = validatorOf(Node);
    const build = (n: number): Record<string, unknown> => {
      let cur: Record<string, unknown> = { id: n };
      for (let i = n - 1; i >= 0; i--) cur = { id: i, next: cur };
      return cur;
    };
    expect(v(build(MAX_VALIDATION_DEPTH))).toEqual([]);
    const deep = v(build(100_000));
    expect(deep).toHaveLength(1);
    expect(deep[0]?.field.split('.')).toHaveLength(MAX_VALIDATION_DEPTH + 1);
    expect(deep[0]?.message).toBe(`must not be nested more than ${MAX_VALIDATION_DEPTH} levels deep`);
    expect(v({ next: { next: {} } }).map((x) => x.field)).toEqual(['id', 'next.id', 'next.next.id']);
  });

  it('fails at start-up when Valid() cannot know the nested class', () => {
    class NoElement {
      @Valid() items?: Item[];
    }
    expect(() => compileValidator(NoElement)).toThrow(/needs Valid\(ElementType\)/);
    class Primitive {
      @Valid() name?: string;
    }
    expect(() => compileValidator(Primitive)).toThrow(/use Valid\(Type\)/);
    class Wrong {
      @Valid(Item) name?: string;
    }
    expect(() => compileValidator(Wrong)).toThrow(/declared as String/);
    // The failure is not cached as a half-built validator.
    expect(() => compileValidator(NoElement)).toThrow(TypeError);
  });
});

describe('compilation', () => {
  it('returns undefined for a class without constraints and for non-classes', () => {
    class Plain {
      name?: string;
    }
    expect(compileValidator(Plain)).toBeUndefined();
    expect(compileValidator(String)).toBeUndefined();
    expect(compileValidator({})).toBeUndefined();
  });

  it('compiles once per type', () => {
    expect(compileValidator(CreateUser)).toBe(compileValidator(CreateUser));
  });

  it('includes constraints inherited from superclasses, base fields first, adding up', () => {
    class Base {
      @NotNull() id?: number;
      @Size({ max: 5 }) code?: string;
    }
    class Mid extends Base {
      @NotBlank() name?: string;
    }
    class Leaf extends Mid {
      @Pattern(/[a-z]+/) override code?: string;
    }
    expect(validatorOf(Leaf)({ code: 'ABCDEFG' }).map((v) => `${v.field}: ${v.message}`)).toEqual([
      'id: must not be null',
      'code: size must be at most 5',
      'code: must match "[a-z]+"',
      'name: must not be blank',
    ]);
    // The base keeps only its own rules.
    expect(validatorOf(Base)({ id: 1, code: 'abc' })).toEqual([]);
    class OnlyInherited extends Base {}
    expect(validatorOf(OnlyInherited)({ code: 'ABCDEFG' }).map((v) => `${v.field}: ${v.message}`)).toEqual([
      'id: must not be null',
      'code: size must be at most 5',
    ]);
  });

  it('rejects bad constraint arguments when the class is defined', () => {
    expect(() => Size({})).toThrow(TypeError);
    expect(() => Size({ min: 3, max: 2 })).toThrow(/min 3 > max 2/);
    expect(() => Size({ min: -1 })).toThrow(TypeError);
    expect(() => Min(Number.NaN)).toThrow(TypeError);
    expect(() => Pattern('(')).toThrow(SyntaxError);
    expect(() => {
      class S {
        @NotNull() static x?: string;
      }
      return S;
    }).toThrow(/static/);
  });
});

describe('ValidationError and validateOrThrow', () => {
  it('is a 400 BadRequestError carrying every violation as details', () => {
    const violations = [
      { field: 'email', message: 'must not be null' },
      { field: 'age', message: 'must be an integer' },
    ];
    const err = new ValidationError(violations);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('PIPE_VALIDATION');
    expect(err.violations).toBe(violations);
    expect(err.details).toBe(violations);
    expect(err.expose).toBe(true);
    expect(err.message).toBe('Validation failed: email must not be null (and 1 more)');
  });

  it('throws only when there are violations', () => {
    const v = compileValidator(CreateUser);
    expect(() => validateOrThrow(v, good)).not.toThrow();
    expect(() => validateOrThrow(undefined, 'anything')).not.toThrow();
    try {
      validateOrThrow(v, { ...good, email: 'x', age: 1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).violations.map((x) => x.field)).toEqual(['email', 'age']);
    }
  });
});

describe('the number of violations is bounded', () => {
  class Line {
    @NotBlank() sku!: string;
  }
  class Cart {
    @Valid(Line) lines!: Line[];
  }

  it('a huge array of bad elements lists the first MAX_VIOLATIONS and says the list is cut', () => {
    const validate = compileValidator(Cart)!;
    const violations = validate({ lines: Array.from({ length: 350_000 }, () => 1) });
    expect(violations).toHaveLength(MAX_VIOLATIONS + 1);
    expect(violations[0]).toMatchObject({ field: 'lines[0]', message: 'must be an object' });
    expect(violations[MAX_VIOLATIONS]).toEqual({
      field: '',
      message: `has more than ${MAX_VIOLATIONS} violations: the first ${MAX_VIOLATIONS} are listed`,
    });
  });

  it('up to the bound, every violation is listed', () => {
    const violations = compileValidator(Cart)!({ lines: Array.from({ length: MAX_VIOLATIONS }, () => ({ sku: '' })) });
    expect(violations).toHaveLength(MAX_VIOLATIONS);
    expect(violations.every((v) => v.message === 'must not be blank')).toBe(true);
  });
});

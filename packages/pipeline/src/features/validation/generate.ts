import type { CompiledNested, CompiledType, ObjectCheck, Validator, Violation } from './compile.js';
import type { ConstraintDef } from './constraints.js';

/**
 * What the generated code calls besides the constraints: passed in as bound values (compile.ts owns
 * them), so the generated function and the interpreter share one definition of each message and rule.
 */
export interface GeneratorRuntime {
  readonly violation: (field: string, message: string, value: unknown) => Violation;
  readonly join: (path: string, key: string) => string;
  readonly hasMessage: (out: readonly Violation[], start: number, message: string) => boolean;
  /** Cuts a list longer than MAX_VIOLATIONS and says so (compile.ts `cutViolations`). */
  readonly cut: (out: Violation[]) => void;
  readonly maxViolations: number;
  readonly maxDepth: number;
  readonly depthMessage: string;
  readonly notObject: string;
  readonly notArray: string;
}

/** The two functions generated for one entity class. */
export interface GeneratedValidator {
  /** Checks an object at `path`, nested `depth` levels deep, appending violations. */
  readonly check: ObjectCheck;
  /** The class's validator (an entity that is not an object, the bound on the list's length). */
  readonly validate: Validator;
}

/**
 * Generates the validator of one compiled class as one JavaScript function (`new Function`), the way
 * ajv and fast-json-stringify compile schemas.
 *
 * Why source, not a chain of closures: V8 keeps type feedback per function literal, so closures
 * built from the same literal for every property and every class share one call site per constraint
 * slot and go megamorphic (the interpreter in compile.ts reads `c.accepts` / `c.isValid` from
 * differently shaped definitions and calls a different function at the same site for each
 * constraint: about half of its cost). Each generated function is a new literal: its property reads
 * see the one shape of this class's JSON objects, and each call site calls one constraint function
 * that the optimising compiler can inline.
 *
 * Why it is safe: the source is fixed text plus identifiers made from indices (`b12`). Every value
 * it uses (property names, messages, constraint functions, nested types, limits) is passed as an
 * argument of the outer function, never written into the source, so no user string is ever parsed
 * as code. Where code generation from strings is disallowed (`--disallow-code-generation-from-strings`,
 * a CSP), `new Function` throws an `EvalError` and compile.ts keeps its interpreter, which gives the
 * same violations.
 *
 * The generated code follows compile.ts `validateObject`, `checkConstraints` and `validateNested`
 * step by step, with the decisions that depend only on the class (which constraints let null pass,
 * which have a type guard, the nested value's expected shape) taken here, once.
 */
export function generateValidator(ct: CompiledType, rt: GeneratorRuntime): GeneratedValidator {
  const src = new Source();
  const h = helpers(src, rt);
  const hasOwn = src.bind(Object.hasOwn);
  const getPrototypeOf = src.bind(Object.getPrototypeOf);
  const objectPrototype = src.bind(Object.prototype);
  const cut = src.bind(rt.cut);
  const maxDepth = src.bind(rt.maxDepth);
  const depthMessage = src.bind(rt.depthMessage);
  const notArray = src.bind(rt.notArray);
  const { isArray, violation, max, notObject } = h;

  src.emit('function check(o, p, d, out) {');
  // Plain (JSON) objects: own keys only (compile.ts validateObject says why). An own key reads the
  // same either way, so the prototype (a call into the runtime) is looked up only for a missing key
  // (a Proxy entity therefore sees its getOwnPropertyDescriptor trap before getPrototypeOf).
  // 0: not looked up yet; 1: a plain object (own keys only); 2: a class instance (normal reads).
  src.emit('let pl = 0;');
  for (const f of ct.fields) {
    const key = src.bind(f.key);
    const field = `${h.join}(p, ${key})`;
    src.emit(`if (out.length <= ${max}) {`);
    src.emit('let v;');
    src.emit(`if (${hasOwn}(o, ${key})) v = o[${key}];`);
    src.emit('else {');
    src.emit(`if (pl === 0) { const q = ${getPrototypeOf}(o); pl = q === ${objectPrototype} || q === null ? 1 : 2; }`);
    src.emit(`if (pl === 2) v = o[${key}];`);
    src.emit('}');
    emitConstraints(src, h, f.constraints, field, f.nested?.mode);
    if (f.nested !== undefined) {
      const type = src.bind(f.nested.type);
      const mode = f.nested.mode;
      src.emit('if (v !== undefined && v !== null) {');
      src.emit(`const np = ${field};`);
      // Recursion is bounded here (compile.ts validateNested).
      src.emit(`if (d + 1 > ${maxDepth}) out.push(${violation}(np, ${depthMessage}, undefined));`);
      src.emit(`else if (${isArray}(v)) {`);
      if (mode === 'object') {
        src.emit(`out.push(${violation}(np, ${notObject}, v));`);
      } else {
        src.emit(`for (let e = 0; e < v.length && out.length <= ${max}; e++) {`);
        src.emit('const x = v[e];');
        src.emit(`const ep = np + '[' + e + ']';`);
        src.emit(`if (typeof x === 'object' && x !== null && !${isArray}(x)) ${type}.check(x, ep, d + 1, out);`);
        src.emit(`else out.push(${violation}(ep, ${notObject}, x));`);
        src.emit('}');
      }
      src.emit('}');
      if (mode === 'array') src.emit(`else out.push(${violation}(np, ${notArray}, v));`);
      else {
        src.emit(`else if (typeof v === 'object') ${type}.check(v, np, d + 1, out);`);
        src.emit(`else out.push(${violation}(np, ${notObject}, v));`);
      }
      src.emit('}');
    }
    src.emit('}');
  }
  src.emit('}');
  src.emit('function validate(value) {');
  src.emit('const out = [];');
  src.emit(`if (typeof value !== 'object' || value === null || ${isArray}(value)) out.push(${violation}('', ${notObject}, value));`);
  src.emit(`else check(value, '', 0, out);`);
  src.emit(`if (out.length > ${max}) ${cut}(out);`);
  src.emit('return out;');
  src.emit('}');
  src.emit('return { check, validate };');
  return src.build<GeneratedValidator>();
}

/**
 * Generates the check of one value against `constraints` (a resource method parameter, a
 * `@BeanParam` field), each violation under `field`: compile.ts `checkConstraints` with the
 * decisions that depend only on the constraints taken here, once.
 */
export function generateValueCheck(
  constraints: readonly ConstraintDef[],
  field: string,
  rt: GeneratorRuntime,
): (value: unknown, out: Violation[]) => void {
  const src = new Source();
  const h = helpers(src, rt);
  src.emit('return function check(v, out) {');
  emitConstraints(src, h, constraints, src.bind(field), undefined);
  src.emit('};');
  return src.build<(value: unknown, out: Violation[]) => void>();
}

/** Generated source and the values it is called with. */
class Source {
  private readonly names: string[] = [];
  private readonly values: unknown[] = [];
  private readonly lines: string[] = [];

  /** Passes `value` to the generated code; returns the name it has there (`b12`: made from an index only). */
  bind(value: unknown): string {
    const name = `b${this.values.length}`;
    this.names.push(name);
    this.values.push(value);
    return name;
  }

  emit(line: string): void {
    this.lines.push(line);
  }

  /** Compiles the source (which ends with a `return`) and calls it with the bound values. */
  build<T>(): T {
    // Fixed source, every value bound as an argument (see above): nothing the caller wrote is evaluated.
    // oxlint-disable-next-line typescript/no-implied-eval
    const factory = new Function(...this.names, this.lines.join('\n')) as (...bound: unknown[]) => T;
    return factory(...this.values);
  }
}

interface Helpers {
  readonly isArray: string;
  readonly violation: string;
  readonly join: string;
  readonly hasMessage: string;
  readonly max: string;
  readonly notObject: string;
}

function helpers(src: Source, rt: GeneratorRuntime): Helpers {
  return {
    isArray: src.bind(Array.isArray),
    violation: src.bind(rt.violation),
    join: src.bind(rt.join),
    hasMessage: src.bind(rt.hasMessage),
    max: src.bind(rt.maxViolations),
    notObject: src.bind(rt.notObject),
  };
}

/**
 * Emits the checks of `v` against `constraints` (compile.ts `checkConstraints`), each violation under
 * the field `field` (an expression). `nested` is the mode of a `Valid()` on the same value: a value of
 * the wrong shape then gets its message from the nested check, not a type message here.
 */
function emitConstraints(
  src: Source,
  h: Helpers,
  constraints: readonly ConstraintDef[],
  field: string,
  nested: CompiledNested['mode'] | undefined,
): void {
  src.emit('if (v === undefined || v === null) {');
  for (const c of constraints) {
    if (c.nullPasses) continue;
    src.emit(`if (!${src.bind(c.isValid)}(v)) out.push(${h.violation}(${field}, ${src.bind(c.message)}, v));`);
  }
  src.emit('} else {');
  if (constraints.some((c) => c.accepts !== undefined)) {
    src.emit('const s = out.length;');
    // A nested value of the wrong shape is reported once, by the nested check (shapeFits).
    if (nested !== undefined) {
      const wrongShape =
        nested === 'object'
          ? `${h.isArray}(v) || typeof v !== 'object'`
          : nested === 'array'
            ? `!${h.isArray}(v)`
            : `typeof v !== 'object'`;
      src.emit(`const sr = ${wrongShape};`);
    }
  }
  for (const c of constraints) {
    const failed = `out.push(${h.violation}(${field}, ${src.bind(c.message)}, v));`;
    const invalid = `!${src.bind(c.isValid)}(v)`;
    if (c.accepts === undefined) {
      src.emit(`if (${invalid}) ${failed}`);
      continue;
    }
    const typeMessage = src.bind(c.typeMessage);
    const shapeReported = nested !== undefined ? '!sr && ' : '';
    src.emit(`if (!${src.bind(c.accepts)}(v)) {`);
    src.emit(`if (${shapeReported}!${h.hasMessage}(out, s, ${typeMessage})) out.push(${h.violation}(${field}, ${typeMessage}, v));`);
    src.emit(`} else if (${invalid}) ${failed}`);
  }
  src.emit('}');
}

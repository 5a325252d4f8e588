import type { CompiledType, ObjectCheck, Validator, Violation } from './compile.js';

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
  const names: string[] = [];
  const values: unknown[] = [];
  const bind = (value: unknown): string => {
    const name = `b${values.length}`;
    names.push(name);
    values.push(value);
    return name;
  };
  const hasOwn = bind(Object.hasOwn);
  const getPrototypeOf = bind(Object.getPrototypeOf);
  const objectPrototype = bind(Object.prototype);
  const isArray = bind(Array.isArray);
  const violation = bind(rt.violation);
  const join = bind(rt.join);
  const hasMessage = bind(rt.hasMessage);
  const cut = bind(rt.cut);
  const max = bind(rt.maxViolations);
  const maxDepth = bind(rt.maxDepth);
  const depthMessage = bind(rt.depthMessage);
  const notObject = bind(rt.notObject);
  const notArray = bind(rt.notArray);

  const lines: string[] = [];
  const emit = (line: string): void => void lines.push(line);
  emit('function check(o, p, d, out) {');
  // Plain (JSON) objects: own keys only (compile.ts validateObject says why).
  emit(`const q = ${getPrototypeOf}(o);`);
  emit(`const own = q === ${objectPrototype} || q === null;`);
  for (const f of ct.fields) {
    const key = bind(f.key);
    const field = `${join}(p, ${key})`;
    emit(`if (out.length <= ${max}) {`);
    emit(`const v = !own || ${hasOwn}(o, ${key}) ? o[${key}] : undefined;`);
    emit('if (v === undefined || v === null) {');
    for (const c of f.constraints) {
      if (c.nullPasses) continue;
      emit(`if (!${bind(c.isValid)}(v)) out.push(${violation}(${field}, ${bind(c.message)}, v));`);
    }
    emit('} else {');
    const guarded = f.constraints.some((c) => c.accepts !== undefined);
    if (guarded) {
      emit('const s = out.length;');
      // A nested value of the wrong shape is reported once, by the nested check (shapeFits).
      if (f.nested !== undefined) {
        const wrongShape =
          f.nested.mode === 'object'
            ? `${isArray}(v) || typeof v !== 'object'`
            : f.nested.mode === 'array'
              ? `!${isArray}(v)`
              : `typeof v !== 'object'`;
        emit(`const sr = ${wrongShape};`);
      }
    }
    for (const c of f.constraints) {
      const isValid = `!${bind(c.isValid)}(v)`;
      const failed = `out.push(${violation}(${field}, ${bind(c.message)}, v));`;
      if (c.accepts === undefined) {
        emit(`if (${isValid}) ${failed}`);
        continue;
      }
      const typeMessage = bind(c.typeMessage);
      const shapeReported = f.nested !== undefined ? '!sr && ' : '';
      emit(`if (!${bind(c.accepts)}(v)) {`);
      emit(`if (${shapeReported}!${hasMessage}(out, s, ${typeMessage})) out.push(${violation}(${field}, ${typeMessage}, v));`);
      emit(`} else if (${isValid}) ${failed}`);
    }
    if (f.nested !== undefined) {
      const type = bind(f.nested.type);
      const mode = f.nested.mode;
      emit(`const np = ${field};`);
      // Recursion is bounded here (compile.ts validateNested).
      emit(`if (d + 1 > ${maxDepth}) out.push(${violation}(np, ${depthMessage}, undefined));`);
      emit(`else if (${isArray}(v)) {`);
      if (mode === 'object') {
        emit(`out.push(${violation}(np, ${notObject}, v));`);
      } else {
        emit(`for (let e = 0; e < v.length && out.length <= ${max}; e++) {`);
        emit('const x = v[e];');
        emit(`const ep = np + '[' + e + ']';`);
        emit(`if (typeof x === 'object' && x !== null && !${isArray}(x)) ${type}.check(x, ep, d + 1, out);`);
        emit(`else out.push(${violation}(ep, ${notObject}, x));`);
        emit('}');
      }
      emit('}');
      if (mode === 'array') emit(`else out.push(${violation}(np, ${notArray}, v));`);
      else {
        emit(`else if (typeof v === 'object') ${type}.check(v, np, d + 1, out);`);
        emit(`else out.push(${violation}(np, ${notObject}, v));`);
      }
    }
    emit('}');
    emit('}');
  }
  emit('}');
  emit('function validate(value) {');
  emit('const out = [];');
  emit(`if (typeof value !== 'object' || value === null || ${isArray}(value)) out.push(${violation}('', ${notObject}, value));`);
  emit(`else check(value, '', 0, out);`);
  emit(`if (out.length > ${max}) ${cut}(out);`);
  emit('return out;');
  emit('}');
  emit('return { check, validate };');
  // Fixed source, every value bound as an argument (see above): nothing the caller wrote is evaluated.
  // oxlint-disable-next-line typescript/no-implied-eval
  const factory = new Function(...names, lines.join('\n')) as (...bound: unknown[]) => GeneratedValidator;
  return factory(...values);
}

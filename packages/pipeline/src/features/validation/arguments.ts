import { compileConstraintsCheck, type Validator, type Violation } from './compile.js';
import { ownRules, paramRules, type ConstraintDef } from './constraints.js';
import { entityViolations, ValidationError } from './validation-error.js';
// Violations are named as conversion failures are (`query.size`, `path.id`, `body.email`), so one 400 lists both.
import { parameterField, type ArgumentsValidator, type ConversionItem } from '../../core/internal/param-conversion.js';

/** A `@BeanParam` class as the validator needs it: its parameter fields, nested beans included. */
export interface BeanShape {
  readonly cls: Function;
  readonly fields: ReadonlyArray<{
    readonly key: string;
    readonly source: string;
    readonly name: string | undefined;
    readonly bean: BeanShape | undefined;
  }>;
}

/** One argument of a resource method, as the build compiled it. */
export interface ArgumentShape {
  readonly index: number;
  /** `query`, `path`, `header`, `cookie`, `form`, `context`, `bean`, or `entity` (also for un-annotated). */
  readonly source: string;
  readonly name: string | undefined;
  /** For a `@BeanParam` argument: its fields. */
  readonly bean?: BeanShape | undefined;
  /** For the entity: its class's validator (run when a body is present). */
  readonly entity?: Validator | undefined;
}

/** Checks the resolved arguments of one request, appending violations. */
type Check = (args: readonly unknown[], out: Violation[]) => void;
type ValueCheck = (value: unknown, out: Violation[]) => void;

/**
 * Compiles the constraints on the parameters of `resourceClass.method` and on the fields of its
 * `@BeanParam` arguments into one check for the VALIDATION slot: it throws one
 * {@link ValidationError} listing every violation of the request, in argument order, the entity's
 * included. `undefined` when no parameter or bean field carries a constraint: the route then
 * keeps the entity's own check (or none), at no cost.
 */
export function compileArgumentsValidator(
  resourceClass: Function,
  method: string,
  args: readonly ArgumentShape[],
): ArgumentsValidator | undefined {
  const declared = paramRules(resourceClass, method);
  const checks: Check[] = [];
  /** The same without the entity's: when a value did not convert, the body is not read. */
  const paramChecks: Check[] = [];
  let constrained = 0;
  for (const a of args) {
    const own = declared?.[a.index];
    if (own !== undefined && own.length > 0) {
      checks.push(valueAt(a.index, constraintsCheck(own, parameterField(a.source, a.name))));
      if (a.source !== 'entity') paramChecks.push(checks[checks.length - 1]!);
      constrained++;
    }
    if (a.bean !== undefined) {
      const bean = beanCheck(a.bean);
      if (bean !== undefined) {
        checks.push(valueAt(a.index, bean));
        paramChecks.push(checks[checks.length - 1]!);
        constrained++;
      }
    }
    const entity = a.entity;
    if (entity !== undefined) {
      checks.push((values, out) => {
        const v = values[a.index];
        // An absent optional entity is not validated (only constraints on the parameter see it).
        if (v !== undefined) for (const violation of entityViolations(entity(v))) out.push(violation);
      });
    }
  }
  if (constrained === 0) return undefined;
  return (values, failures) => {
    const out: Violation[] = [];
    if (failures === undefined) {
      for (let i = 0; i < checks.length; i++) checks[i]!(values, out);
      if (out.length > 0) throw new ValidationError(out);
      return;
    }
    for (let i = 0; i < paramChecks.length; i++) paramChecks[i]!(values, out);
    const kept = withoutFailed(out, failures);
    if (kept.length > 0) throw new ValidationError([...failures, ...kept]);
  };
}

/**
 * The violations of values that converted: a value that did not convert is absent from the
 * arguments, so a `@NotNull` on it would only repeat the conversion failure.
 */
function withoutFailed(violations: readonly Violation[], failures: readonly ConversionItem[]): Violation[] {
  return violations.filter((v) => !failures.some((f) => f.field === v.field));
}

const valueAt =
  (index: number, check: ValueCheck): Check =>
  (values, out) =>
    check(values[index], out);

// Generated per parameter (compile.ts), so each constraint call site sees one constraint.
function constraintsCheck(cs: readonly ConstraintDef[], field: string): ValueCheck {
  return compileConstraintsCheck(cs, field);
}

/** Checks of a bean's constrained fields (nested beans recursively); undefined when there are none. */
function beanCheck(shape: BeanShape): ValueCheck | undefined {
  const keys: string[] = [];
  const checks: ValueCheck[] = [];
  for (const f of shape.fields) {
    const cs = fieldConstraints(shape.cls, f.key);
    if (cs.length > 0) {
      keys.push(f.key);
      checks.push(constraintsCheck(cs, parameterField(f.source, f.name)));
    }
    const nested = f.bean === undefined ? undefined : beanCheck(f.bean);
    if (nested !== undefined) {
      keys.push(f.key);
      checks.push(nested);
    }
  }
  if (checks.length === 0) return undefined;
  return (bean, out) => {
    if (typeof bean !== 'object' || bean === null) return;
    const record = bean as Record<string, unknown>;
    for (let i = 0; i < checks.length; i++) checks[i]!(record[keys[i]!], out);
  };
}

/** The constraints on one field of `cls`, its superclasses' first (they add up, Bean Validation 2.0 §5.6.5). */
function fieldConstraints(cls: Function, key: string): ConstraintDef[] {
  const chain: Function[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  const out: ConstraintDef[] = [];
  for (const c of chain) {
    const rules = ownRules(c)?.get(key);
    if (rules !== undefined) out.push(...rules.constraints);
  }
  return out;
}

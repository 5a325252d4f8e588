/**
 * Start-up validation of the resource model, as Jersey's `ModelValidationException`: every
 * problem found while building an application is collected, fatal ones abort `build()` together
 * (all of them, not just the first), and the rest are reported once as warnings (`strict: true`
 * makes them fatal too). Each problem has a stable code, documented in docs/errors.md, "Start-up
 * errors and warnings" table.
 */

/** Stable codes of start-up problems. */
export type ModelProblemCode =
  /** A `resources` entry is an instance, not a class. */
  | 'PIPELINE_RESOURCE_NOT_A_CLASS'
  /** A `resources` entry has no `@Path` and no resource method. */
  | 'PIPELINE_NOT_A_RESOURCE'
  /** A registered provider implements no provider contract (a misspelt method name, typically). */
  | 'PIPELINE_NOT_A_PROVIDER'
  /** A resource method has decorated parameters but no `design:paramtypes` metadata. */
  | 'PIPELINE_NO_DESIGN_TYPES'
  /** Two resource methods answer the same HTTP method, path and media types. */
  | 'PIPELINE_AMBIGUOUS_ROUTE'
  /** A `@PathParam` names no variable of its method's path template. */
  | 'PIPELINE_UNKNOWN_PATH_PARAM'
  /** A `@BeanParam` class cannot be built or has nothing to set (no decorated field, nested in a cycle...). */
  | 'PIPELINE_BEAN_PARAM_INVALID'
  /** A field of a `@BeanParam` class has no `design:type` and no explicit type. */
  | 'PIPELINE_BEAN_FIELD_UNTYPED'
  /** The container could not build a resource or provider. */
  | 'PIPELINE_DI_FAILED'
  /** Two providers (or the features registering them) take a role only one may take, e.g. two content-coding features. */
  | 'PIPELINE_PROVIDER_CONFLICT'
  /** A path/query/header/cookie/matrix/form parameter (or `@BeanParam` field) of a type nothing converts from text. */
  | 'PIPELINE_PARAM_UNCONVERTIBLE'
  /** A method's full path template (class and method `@Path`) does not compile. */
  | 'PIPELINE_INVALID_PATH'
  /** An ExceptionMapper without the error type it maps. */
  | 'PIPELINE_MAPPER_WITHOUT_TYPE'
  /** `@ServedWhileClosing()` on a method that is not a GET of a root resource at a literal path. */
  | 'PIPELINE_CLOSING_ROUTE_INVALID'
  /** Warning: a GET or HEAD method declares an entity parameter. */
  | 'PIPELINE_ENTITY_ON_GET'
  /** Warning: a provider is bound to a binding decorator no resource carries: it never runs. */
  | 'PIPELINE_BINDING_UNUSED'
  /** Warning: a resource carries a binding decorator no provider (or dynamic feature) uses. */
  | 'PIPELINE_BINDING_WITHOUT_PROVIDER'
  /** A sub-resource locator takes the request entity. */
  | 'PIPELINE_LOCATOR_ENTITY'
  /** The class a sub-resource locator returns has no resource method and no locator. */
  | 'PIPELINE_NOT_A_SUB_RESOURCE'
  /** A `@Context()` parameter or field whose type the pipeline cannot inject (often a class imported with `import type`). */
  | 'PIPELINE_CONTEXT_TYPE_UNKNOWN'
  /** A method takes an `SseEventSink` without `@Produces('text/event-stream')`. */
  | 'PIPELINE_SINK_WITHOUT_EVENT_STREAM'
  /** A method needs a feature that is not registered (e.g. multipart entities without `MultipartFeature`). */
  | 'PIPELINE_FEATURE_NOT_REGISTERED'
  /** A method `@Consumes` a concrete media type no registered reader reads its entity as (every such request would be a 415). */
  | 'PIPELINE_NO_READER'
  /** A method `@Produces` a concrete media type no registered writer writes its declared return type as (every such response would be a 500). */
  | 'PIPELINE_NO_WRITER'
  /** A `text/event-stream` method without a sink declares a return type no registered writer can write as that type. */
  | 'PIPELINE_NO_EVENT_STREAM_WRITER'
  /** Warning: a method that takes an `SseEventSink` also declares a return value (dropped once the stream started). */
  | 'PIPELINE_SINK_RESULT_IGNORED'
  /** Warning: a `resources` entry has `@Path` but no resource method and no locator. */
  | 'PIPELINE_EMPTY_RESOURCE'
  /** A `resources` entry has resource methods but no class `@Path` (its own or inherited). */
  | 'PIPELINE_RESOURCE_WITHOUT_PATH';

/** One start-up problem. */
export interface ModelProblem {
  readonly code: ModelProblemCode;
  readonly severity: 'error' | 'warning';
  /** Names the class, the member and the fix. */
  readonly message: string;
}

/** `build()` failed: every fatal problem of the model, each with its code. */
export class ModelValidationError extends Error {
  override readonly name = 'ModelValidationError';
  readonly code = 'PIPELINE_MODEL_INVALID';
  readonly problems: readonly ModelProblem[];

  constructor(problems: readonly ModelProblem[]) {
    const lines = problems.map((p) => `  [${p.code}] ${p.message}`);
    super(`The application cannot start: ${problems.length} problem(s) in its resource model\n${lines.join('\n')}`);
    this.problems = problems;
  }
}

/**
 * Thrown by code that compiles one member at start-up (a parameter resolver, a context factory)
 * to refuse it with a stable code; the model builder records it as that problem, so it is reported
 * together with the others instead of aborting the build on the first.
 */
export class ModelProblemError extends Error {
  override readonly name = 'ModelProblemError';
  constructor(
    readonly code: ModelProblemCode,
    message: string,
  ) {
    super(message);
  }
}

/** Collects problems while the model is built; {@link ModelProblems.finish} reports them. */
export class ModelProblems {
  readonly list: ModelProblem[] = [];

  error(code: ModelProblemCode, message: string): void {
    this.list.push({ code, severity: 'error', message });
  }

  warn(code: ModelProblemCode, message: string): void {
    this.list.push({ code, severity: 'warning', message });
  }

  /** Throws every error (and, when `strict`, every warning); hands the remaining warnings to `onWarning`. */
  finish(strict: boolean, onWarning: (problem: ModelProblem) => void): void {
    const fatal = this.list.filter((p) => p.severity === 'error' || strict);
    if (fatal.length > 0) throw new ModelValidationError(fatal);
    for (const p of this.list) onWarning(p);
  }
}

/** The recognised provider methods and the contract each one belongs to (for messages). */
export const PROVIDER_CONTRACTS: ReadonlyArray<readonly [method: string, contract: string]> = [
  ['filterRequest', 'ContainerRequestFilter'],
  ['filterResponse', 'ContainerResponseFilter'],
  ['aroundReadFrom', 'ReaderInterceptor'],
  ['aroundWriteTo', 'WriterInterceptor'],
  ['readFrom', 'MessageBodyReader'],
  ['writeTo', 'MessageBodyWriter'],
  ['getConverter', 'ParamConverterProvider'],
  ['toResponse', 'ExceptionMapper'],
  ['getContext', 'ContextResolver'],
  ['onRequest', 'RequestListener'],
  ['runInScope', 'RequestScope'],
  ['setup', 'Feature'],
  ['configure', 'DynamicFeature'],
];

/** The method names an object has (own and inherited, not Object's), for "it has: ..." hints. */
export function methodNames(o: object): string[] {
  const names = new Set<string>();
  for (
    let p: object | null = Object.getPrototypeOf(o) as object | null;
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p) as object | null
  ) {
    for (const k of Object.getOwnPropertyNames(p))
      if (k !== 'constructor' && typeof (o as Record<string, unknown>)[k] === 'function') names.add(k);
  }
  for (const k of Object.keys(o)) if (typeof (o as Record<string, unknown>)[k] === 'function') names.add(k);
  return [...names];
}

/** Why the container could not build `cls`, with the likely fixes (tsyringe says only "TypeInfo not known"). */
export function diFailure(cls: Function, role: string, cause: unknown): string {
  const why = (cause instanceof Error ? cause.message : String(cause)).replace(/\s+/g, ' ').trim();
  return (
    `${cls.name} (registered as ${role}) could not be built by the container: ${why}. Likely fixes: decorate it with ` +
    `@injectable() (tsyringe); compile with "emitDecoratorMetadata": true so its constructor parameter types are known; ` +
    `for a constructor parameter typed as an interface, register a token and use @inject(TOKEN).`
  );
}

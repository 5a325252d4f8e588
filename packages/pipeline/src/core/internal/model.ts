import type { MediaType } from '../http/media-type.js';
import type { DeadlineSpec } from '../model/metadata.js';
import { ProviderCache } from './provider-cache.js';
import { has } from '../model/provider-entry.js';
import type {
  Constructor,
  ContainerRequestFilter,
  ContainerResponseFilter,
  ExceptionMapper,
  MessageBodyReader,
  MessageBodyWriter,
  ReaderInterceptor,
  TypeToken,
  WriterInterceptor,
} from '../context/contracts.js';
import type { ResourceInfo } from '../context/resource-info.js';
import type { Exchange } from './exchange.js';
import type { WritePlan } from './writers.js';
import type { ReadPlan } from './readers.js';
import type { ArgumentsValidator } from './param-conversion.js';

/** Response-side chains: the global ones (no match, pre-match abort) or a route's G+B ones. */
export interface ResponseChains {
  /** Already in DESCENDING priority order. */
  readonly responseFilters: readonly ContainerResponseFilter[];
  /** Ascending priority order. */
  readonly writerInterceptors: readonly WriterInterceptor[];
}

/** Turns the request into one argument of the resource method. */
export type ArgResolver = (ex: Exchange) => unknown;

/** How the entity parameter is read. */
export interface EntityParam {
  readonly index: number;
  readonly type: TypeToken;
  readonly optional: boolean;
  /** Compiled validator (VALIDATION slot), absent when the type has no constraints. */
  readonly validate: ((value: unknown) => void) | undefined;
}

/**
 * Everything one resource method needs at request time, computed once at start-up:
 * the request path walks these arrays, it never sorts or scans metadata.
 */
export interface RouteMethod extends ResponseChains {
  readonly info: ResourceInfo;
  readonly httpMethod: string;
  readonly consumes: readonly MediaType[];
  /** Empty: decided by the writers able to write the entity. */
  readonly produces: readonly MediaType[];
  /** Post-matching request filters, global + bound + dynamic, ascending. */
  readonly requestFilters: readonly ContainerRequestFilter[];
  readonly readerInterceptors: readonly ReaderInterceptor[];
  readonly args: readonly ArgResolver[];
  readonly entity: EntityParam | undefined;
  /** Has `@FormParam`s: the form body is read (as the entity) before arguments are resolved. */
  readonly form: boolean;
  /**
   * Constraints on parameters and `@BeanParam` fields (the entity's included, whose own `validate`
   * is then undefined), checked in the VALIDATION slot; throws one 400 listing every violation.
   * Undefined when no parameter is constrained.
   */
  readonly validate: ArgumentsValidator | undefined;
  /** Shared instance, or undefined for per-request resources and sub-resources. */
  readonly instance: object | undefined;
  /** A sub-resource method: it runs on the object its locator returned for this request (locate.ts). */
  readonly located: boolean;
  readonly resourceClass: Constructor;
  readonly fn: (...args: unknown[]) => unknown;
  /** Small cache of Accept header → negotiated type (bounded). */
  readonly negotiated: Map<string, MediaType | null>;
  /** The route's last writer decision (core/stages/write-entity.ts); written at request time. */
  writePlan: WritePlan | undefined;
  /** The route's last reader decision (internal/readers.ts `readDirectInto`); written at request time. */
  readPlan: ReadPlan | undefined;
  /**
   * The last request media type `@Consumes` accepted (core/stages/match.ts); written at request
   * time. `parseMediaType` answers one object per header value, so the same object is the same answer.
   */
  consumed: MediaType | undefined;
  /** `@Deadline` of the method or class, or the application's `deadline`; undefined: none. */
  readonly deadline: DeadlineSpec | undefined;
  /**
   * The Accept header chose this route's media type (several or wildcard `@Produces` types) or
   * this route among others with different `@Produces` for the same path and HTTP method: its
   * responses carry `Vary: Accept`. Set at build, when the path's routes are grouped
   * (build-routes.ts `pathEntry`).
   */
  variesByAccept: boolean;
  /** `@ServedWhileClosing()`: answered normally while the application closes (its path is literal, checked at build). */
  readonly servedWhileClosing: boolean;
}

/** All methods sharing one path template. */
export interface PathEntry {
  /** HTTP methods with at least one resource method here; `lists[i]` holds those of `methods[i]`. */
  readonly methods: readonly string[];
  readonly lists: readonly (readonly RouteMethod[])[];
  /** `Allow` value: the methods, plus HEAD when GET exists and OPTIONS. */
  readonly allow: string;
  readonly allowList: readonly string[];
  /** A sub-resource locator's entry (no methods): matching continues in what it returns. */
  readonly locator: Locator | undefined;
}

/**
 * A sub-resource locator (Jakarta REST 3.1 §3.4.1): a method with `@Path` and no HTTP method. It
 * runs while the request is matched; matching goes on in the object (or class) it returns.
 */
export interface Locator {
  /** Its class, method and full path template; `httpMethod` is ''. */
  readonly info: ResourceInfo;
  readonly fn: (...args: unknown[]) => unknown;
  readonly args: readonly ArgResolver[];
  /** Constraints on its parameters (`@Min` on a `@PathParam`, a `@BeanParam`'s fields), or undefined. */
  readonly validate: ArgumentsValidator | undefined;
  /** Shared instance, or undefined: per-request (resolved), or located itself (`located`). */
  readonly instance: object | undefined;
  readonly located: boolean;
  readonly resourceClass: Constructor;
  /** The model of each class the locator returned (or declares), built once. */
  readonly models: Map<Function, SubResourceModel>;
  /** Builds the model of a class the locator returned; throws an Error naming every problem. */
  readonly model: (cls: Function) => SubResourceModel;
}

/** A class's resource methods and locators as a sub-resource: its templates relative to the locator's. */
export interface SubResourceModel {
  readonly router: import('../routing/router.js').Router<PathEntry>;
}

/** One registered exception mapper. */
export interface MapperEntry {
  readonly errorType: Constructor;
  readonly priority: number;
  readonly mapper: ExceptionMapper;
  readonly name: string;
}

/** Readers/writers in the order they are tried. */
export interface BodyProviders {
  readonly readers: readonly MessageBodyReader[];
  readonly writers: readonly MessageBodyWriter[];
  /** Remembered reader choices by (type, media type) (readers.ts `selectReader`). */
  readonly readerChoices: ProviderCache<MessageBodyReader>;
  /** Remembered writer choices by (type, media type) (writers.ts `selectWriter`). */
  readonly writerChoices: ProviderCache<MessageBodyWriter>;
  /** The media types the writers declare per entity type (writers.ts `writerMediaTypes`). */
  readonly writerTypes: Map<TypeToken, MediaType[]>;
  /** The built-in readers and writers: an application's own win over them (Jakarta REST 3.1 §4.1.3). */
  readonly builtin: ReadonlySet<object>;
}

/** The body providers of a runtime, in choice order, with their caches (built once per runtime). */
export function bodyProviders(
  readers: readonly MessageBodyReader[],
  writers: readonly MessageBodyWriter[],
  builtin: ReadonlySet<object> = new Set(),
): BodyProviders {
  return { readers, writers, readerChoices: new ProviderCache(), writerChoices: new ProviderCache(), writerTypes: new Map(), builtin };
}

/** The readers and the writers among `providers`, each in the given order (one object may be both). */
export function splitBodyProviders(providers: readonly object[]): { readers: MessageBodyReader[]; writers: MessageBodyWriter[] } {
  return {
    readers: providers.filter((p) => has(p, 'readFrom')) as MessageBodyReader[],
    writers: providers.filter((p) => has(p, 'writeTo')) as MessageBodyWriter[],
  };
}

/**
 * The resource methods of `entry` for an HTTP method, or undefined. A scan, not a Map: a path has
 * a handful of methods, and Node's method names are interned strings, so each comparison is
 * a pointer check (cheaper than hashing).
 */
export function candidatesFor(entry: PathEntry, method: string): readonly RouteMethod[] | undefined {
  const methods = entry.methods;
  for (let i = 0; i < methods.length; i++) if (methods[i] === method) return entry.lists[i];
  return undefined;
}

/**
 * Start-up checks of resource methods against the registered readers and writers: a method the
 * request path could only fail (a 415 to a correct client, a 500 once the method ran) is refused
 * by `build()` instead. They ask the same lookups the request path uses (core/internal/readers.ts
 * `readerFor`, writers.ts `writerFor`), so a provider registered later, by any means
 * (an instance, a class, through a Feature), counts. Nothing here runs per request.
 */
import { parseMediaType, type MediaType } from '../http/media-type.js';
import { Response, ResponseBuilder } from '../http/response.js';
import type { ModelProblems } from '../model/model-problems.js';
import type { TypeToken } from '../context/contracts.js';
import { contextTypeOptions, requiredReaders, requiredWriters } from '../internal/extensions.js';
import type { BodyProviders, RouteMethod } from '../internal/model.js';
import { formFields } from '../internal/form-fields.js';
import { readerFor } from '../internal/readers.js';
import { writerFor } from '../internal/writers.js';
import { isSubtypeOf } from '../../providers/type-tokens.js';
import { typeName } from '../util/type-name.js';
import type { RouteFacts } from './build-routes.js';

const EVENT_STREAM = 'text/event-stream';

/** The checks of every resource method of an application whose body providers are `body`. */
export function routeChecks(body: BodyProviders): (route: RouteMethod, facts: RouteFacts, problems: ModelProblems) => void {
  return (route, facts, problems) => {
    const before = problems.list.length;
    checkReaders(route, body, problems);
    checkWriters(route, body, problems);
    checkEventStream(route, facts, body, problems);
    // A missing feature was named above, with its fix: no second problem for the same media type.
    if (problems.list.length !== before) return;
    checkDeclaredReaders(route, body, problems);
    checkDeclaredWriters(route, facts, body, problems);
  };
}

/** A concrete media type (`application/xml`), not a range (`text/*` or any type): the only kind a check can ask about. */
const concrete = (m: MediaType): boolean => m.type !== '*' && m.subtype !== '*';

/**
 * A method that `@Consumes` a concrete media type no registered reader reads as its entity's
 * declared type: every request sending that type, correct as it is, would be a 415
 * (`PIPE_NO_READER`). The request path asks the same lookup with the same declared type
 * (read-entity.ts), and reader interceptors cannot change the type, so the answer is exact.
 */
function checkDeclaredReaders(route: RouteMethod, body: BodyProviders, problems: ModelProblems): void {
  const entity = route.entity;
  if (entity === undefined && !route.form) return;
  const type: TypeToken = route.form ? URLSearchParams : entity!.type;
  for (const mediaType of route.consumes) {
    if (!concrete(mediaType) || readerFor(body, type, mediaType) !== undefined) continue;
    const what = route.form ? 'its @FormParam values' : `its entity (argument ${entity!.index}, ${typeName(type)})`;
    problems.error(
      'PIPELINE_NO_READER',
      `${route.resourceClass.name}.${route.info.methodName} consumes ${mediaType.essence}, but no registered MessageBodyReader reads ${what} ` +
        `as ${mediaType.essence}, so every such request would be answered 415: register a reader for it, or remove ${mediaType.essence} from @Consumes`,
    );
  }
}

/**
 * A method that `@Produces` a concrete media type no registered writer writes its declared
 * return type as (`design:returntype`, when TypeScript names a class): every response of that
 * type would be a 500 (`PIPE_NO_WRITER`) once the method ran, its side effects done. Types
 * TypeScript cannot name (`Object`, `Promise`, `void`) and responses stay allowed; a method whose
 * interceptor or filter turns the entity into another type declares its return type `unknown`.
 * `text/event-stream` has its own check above.
 */
function checkDeclaredWriters(route: RouteMethod, facts: RouteFacts, body: BodyProviders, problems: ModelProblems): void {
  const { returnType } = facts;
  if (unknowable(returnType)) return;
  if (facts.contextTypes.some((t) => contextTypeOptions(t)?.answersRequest === true)) return;
  const type = returnType as TypeToken;
  for (const mediaType of route.produces) {
    if (!concrete(mediaType) || mediaType.essence === EVENT_STREAM || writerFor(body, type, mediaType) !== undefined) continue;
    problems.error(
      'PIPELINE_NO_WRITER',
      `${route.resourceClass.name}.${route.info.methodName} produces ${mediaType.essence} and returns ${typeName(type)}, which no registered ` +
        `MessageBodyWriter writes as ${mediaType.essence}, so every such response would be a 500 after the method ran: register a writer for it, ` +
        `remove ${mediaType.essence} from @Produces, or declare the return type unknown if a filter or interceptor converts the entity`,
    );
  }
}

/**
 * A method whose entity needs a reader a feature brings (extensions.ts `requireReader`, e.g.
 * `MultipartBody`, `EntityPart` form parts, `@FormParam`s under `@Consumes('multipart/form-data')`)
 * while no registered reader can read it.
 */
function checkReaders(route: RouteMethod, body: BodyProviders, problems: ModelProblems): void {
  const entity = route.entity;
  if (entity === undefined) return;
  const where = `${route.resourceClass.name}.${route.info.methodName}`;
  for (const req of requiredReaders()) {
    const mediaType = parseMediaType(req.mediaType);
    if (mediaType === undefined) continue;
    let why: string | undefined;
    if (route.form) {
      if (!req.forms) continue;
      const part = formFields(route.info)?.find((f) => f.part);
      if (part !== undefined) why = `its @FormParam('${part.name}') is a form part`;
      else if (route.consumes.some((m) => m.essence === mediaType.essence))
        why = `its @FormParam values come from a @Consumes('${req.mediaType}') form`;
    } else {
      const needs = req.entityTypes.find((t) => typeof t === 'function' && isSubtypeOf(entity.type, t));
      if (needs !== undefined) why = `it takes a ${typeName(entity.type)} (argument ${entity.index})`;
    }
    if (why === undefined) continue;
    if (readerFor(body, route.form ? URLSearchParams : entity.type, mediaType) !== undefined) continue;
    problems.error(
      'PIPELINE_FEATURE_NOT_REGISTERED',
      `${where} reads ${req.mediaType} (${why}), but no registered reader reads it, so every such request would be answered 415: ${req.fix}`,
    );
  }
}

/**
 * A method that `@Produces` a media type only a feature's writer writes (extensions.ts
 * `requireWriter`, e.g. `multipart/form-data`) while no registered writer writes it: every
 * response would be a 500 once the method ran.
 */
function checkWriters(route: RouteMethod, body: BodyProviders, problems: ModelProblems): void {
  for (const req of requiredWriters()) {
    for (const mediaType of route.produces) {
      if (!req.mediaTypes.includes(mediaType.essence) || writerFor(body, req.probe, mediaType) !== undefined) continue;
      problems.error(
        'PIPELINE_FEATURE_NOT_REGISTERED',
        `${route.resourceClass.name}.${route.info.methodName} produces ${mediaType.essence}, but no registered writer writes it, ` +
          `so every such response would be a 500: ${req.fix}`,
      );
      return;
    }
  }
}

/**
 * A type TypeScript could not name (`Object` for unions and `any`, `Promise` for async methods,
 * `Function` for a class imported with `import type`) or a response: decided at run time.
 */
function unknowable(type: unknown): boolean {
  return (
    typeof type !== 'function' ||
    type === Object ||
    type === Function ||
    type === Promise ||
    isSubtypeOf(type as TypeToken, Response) ||
    isSubtypeOf(type as TypeToken, ResponseBuilder)
  );
}

/**
 * A `text/event-stream` method (WHATWG HTML §9.2) either takes a sink whose stream is the response
 * (then a declared return value would be dropped once the stream started: a warning), or returns
 * its entity: a declared type no registered writer writes as `text/event-stream` could only
 * answer 500, so it is refused. Types TypeScript cannot name stay allowed.
 */
function checkEventStream(route: RouteMethod, facts: RouteFacts, body: BodyProviders, problems: ModelProblems): void {
  const where = `${route.resourceClass.name}.${route.info.methodName}`;
  const { returnType } = facts;
  const sink = facts.contextTypes.find((t) => contextTypeOptions(t)?.answersRequest === true);
  if (sink !== undefined) {
    if (returnType === undefined || unknowable(returnType)) return;
    problems.warn(
      'PIPELINE_SINK_RESULT_IGNORED',
      `${where} takes a ${typeName(sink)} (its stream is the response) but declares a return value (${typeName(returnType)}): ` +
        `once the stream has started the value is dropped; declare it void (or Promise<void>), or return a Response to answer without a stream`,
    );
    return;
  }
  if (unknowable(returnType)) return;
  const type = returnType as TypeToken;
  const streams: MediaType[] = route.produces.filter((m) => m.essence === EVENT_STREAM);
  for (const mediaType of streams) {
    if (writerFor(body, type, mediaType) !== undefined) continue;
    problems.error(
      'PIPELINE_NO_EVENT_STREAM_WRITER',
      `${where} produces ${EVENT_STREAM} and returns ${typeName(type)}, which no registered writer writes as ${EVENT_STREAM}, so it could only answer 500: ` +
        `take @Context() sink: SseEventSink and send events, return a type a writer streams, or register a MessageBodyWriter for it`,
    );
    return;
  }
}

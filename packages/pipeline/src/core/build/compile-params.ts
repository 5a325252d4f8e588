import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebApplicationError } from '../http/errors.js';
import type { Exchange } from '../internal/exchange.js';
import type { ParamMeta } from '../model/metadata.js';
import type { ArgResolver } from '../internal/model.js';
import type { ParamConverterProvider, ParamInfo, TypeToken } from '../context/contracts.js';
import { ContainerRequestContext } from '../context/request-context.js';
import { ResourceInfo } from '../context/resource-info.js';
import { SecurityContext } from '../context/security-context.js';
import { UriInfo } from '../context/uri-info.js';
import { IncomingMessage as NodeIncomingMessage, ServerResponse as NodeServerResponse } from 'node:http';
import { truncate, typeName } from '../util/type-name.js';
import { Int } from '../../providers/type-tokens.js';
import { contextFactory, registeredContextTypes } from '../internal/extensions.js';
import { ModelProblemError } from '../model/model-problems.js';
import { HttpHeaders } from '../context/http-headers.js';
import { FORM_PROPERTY, isFormPartType, noteFormField, type FormParts } from '../internal/form-fields.js';
import { ParamConversionError, parameterField, type ConversionItem } from '../internal/param-conversion.js';

type Convert = (raw: string) => unknown;

/**
 * Compiles one non-entity parameter into a resolver, at start-up (Processing rules §6): a
 * ParamConverterProvider that answers wins, then built-in conversion by declared type; defaults are
 * converted here so a bad `@DefaultValue` fails at start-up. Conversion failures are 400 for every
 * source (our documented choice; JAX-RS says 404 for path/query). `where` names the parameter's
 * declaration in start-up errors (default: the resource method; a `@BeanParam` field names its class),
 * `position` the parameter within it (`argument 2`), for the messages that must point at it.
 * A `@Context()` type nothing can inject throws a {@link ModelProblemError}
 * (`PIPELINE_CONTEXT_TYPE_UNKNOWN`) for the caller to record.
 */
export function compileParam(
  meta: ParamMeta,
  designType: TypeToken | undefined,
  info: ResourceInfo,
  providers: readonly ParamConverterProvider[],
  where = `${info.resourceClass.name}.${info.methodName}`,
  position?: string,
): ArgResolver {
  const source = meta.source!;
  if (source === 'context')
    return contextResolver(meta.type ?? designType, info, where, position === undefined ? where : `${where}, ${position}`);
  const name = meta.name!;
  const type = meta.type ?? designType ?? String;
  const isArray = type === Array;
  const elementType = meta.elementType ?? String;
  if (source === 'form') noteFormField(info, name, isArray ? elementType : type);
  if (source === 'form' && isFormPartType(isArray ? elementType : type)) {
    if (meta.defaultValue !== undefined) {
      throw new Error(`@DefaultValue on form part parameter '${name}' in ${where}: a part has no text form; remove it`);
    }
    return partResolver(name, isArray);
  }
  const pinfo: ParamInfo = { source: source as ParamInfo['source'], name, type, resourceInfo: info };
  const converter = converterFor(isArray ? elementType : type, pinfo, providers);
  if (converter === undefined) {
    const target = isArray ? elementType : type;
    throw new ModelProblemError(
      'PIPELINE_PARAM_UNCONVERTIBLE',
      `${where}${position === undefined ? '' : `, ${position}`}: ${source} parameter '${name}' is a ${typeName(target)}${isArray ? ' array' : ''}, ` +
        `which nothing converts from text: give ${typeName(target)} a static fromString(text), register a ParamConverterProvider for it, ` +
        `or declare it as a string, number, boolean, bigint or Date`,
    );
  }
  const convert = guard(source, name, converter);
  let fallback: unknown = isArray ? [] : undefined;
  if (meta.defaultValue !== undefined) {
    try {
      fallback = isArray ? [convert(meta.defaultValue)] : convert(meta.defaultValue);
    } catch (e) {
      throw new Error(
        `@DefaultValue('${meta.defaultValue}') of ${source} parameter '${name}' in ${where} does not convert: ${(e as Error).message}`,
      );
    }
  }
  const raw = rawAccessor(source, name, isArray);
  if (isArray) {
    return (ex) => {
      const values = raw(ex) as string[] | undefined;
      return values === undefined || values.length === 0 ? fallback : values.map(convert);
    };
  }
  return (ex) => {
    const value = raw(ex) as string | undefined;
    return value === undefined ? fallback : convert(value);
  };
}

function rawAccessor(source: ParamMeta['source'], name: string, many: boolean): (ex: Exchange) => string | string[] | undefined {
  switch (source) {
    case 'path':
      return (ex) => {
        const v = ex.pathParam(name);
        return many && v !== undefined ? [v] : v;
      };
    case 'query':
      return many
        ? (ex) => (ex.rawQuery === '' ? undefined : ex.query.getAll(name))
        : (ex) => (ex.rawQuery === '' ? undefined : (ex.query.get(name) ?? undefined));
    case 'header':
      return (ex) => {
        const v = ex.headers[name];
        if (v === undefined) return undefined;
        if (many) return Array.isArray(v) ? v : v.split(',').map((s) => s.trim());
        return Array.isArray(v) ? v.join(', ') : v;
      };
    case 'cookie':
      return (ex) => {
        const v = ex.cookies[name];
        return many && v !== undefined ? [v] : v;
      };
    case 'form':
      return (ex) => {
        const form = ex.getProperty(FORM_PROPERTY) as URLSearchParams | undefined;
        if (form === undefined) return undefined;
        return many ? form.getAll(name) : (form.get(name) ?? undefined);
      };
    default:
      throw new Error(`unsupported parameter source ${String(source)}`);
  }
}

function partResolver(name: string, many: boolean): ArgResolver {
  return (ex) => {
    const form = ex.getProperty(FORM_PROPERTY) as Partial<FormParts> | undefined;
    if (typeof form?.part !== 'function' || typeof form.parts !== 'function') return many ? [] : undefined;
    return many ? form.parts(name) : (form.part(name) ?? undefined);
  };
}

function guard(source: string, name: string, convert: Convert): Convert {
  const field = parameterField(source, name);
  return (raw) => {
    try {
      return convert(raw);
    } catch (e) {
      if (e instanceof WebApplicationError) throw e;
      const reason = (e as Error).message;
      // The same item shape as a constraint violation (Violation: `value` only when short enough to echo).
      const item: ConversionItem = raw.length <= 256 ? { field, message: reason, value: raw } : { field, message: reason };
      throw new ParamConversionError(`Invalid ${source} parameter '${name}': ${reason}`, [item]);
    }
  };
}

function converterFor(type: TypeToken, info: ParamInfo, providers: readonly ParamConverterProvider[]): Convert | undefined {
  for (const p of providers) {
    const c = p.getConverter(type, info);
    if (c !== undefined) return (raw) => c.fromString(raw);
  }
  if (type === String || type === Object) return (raw) => raw;
  if (type === Int) {
    return (raw) => {
      if (!INTEGER.test(raw)) throw new TypeError(`'${truncate(raw)}' is not an integer`);
      const n = Number(raw);
      if (!Number.isSafeInteger(n))
        throw new TypeError(`'${truncate(raw)}' is outside the safe integer range (±${Number.MAX_SAFE_INTEGER})`);
      return n;
    };
  }
  if (type === Number) {
    // Decimal notation only: Number() would also take '0x10', '0b1' and '' (JAX-RS rejects them).
    return (raw) => {
      const d = digitsValue(raw);
      if (d >= 0) return d;
      const n = DECIMAL.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n)) throw new TypeError(`'${truncate(raw)}' is not a number`);
      return n;
    };
  }
  if (type === Boolean) {
    return (raw) => {
      const v = raw.toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      throw new TypeError(`'${truncate(raw)}' is not a boolean`);
    };
  }
  if (type === BigInt) {
    return (raw) => {
      if (!/^-?\d+$/.test(raw)) throw new TypeError(`'${truncate(raw)}' is not an integer`);
      return BigInt(raw);
    };
  }
  if (type === Date) {
    // ISO 8601 or the HTTP date (RFC 9110 §5.6.7) only; V8's lenient parser would turn 'foo 12'
    // into a date, and '2024-02-30' into March 1st.
    return (raw) => {
      const iso = ISO_DATE.exec(raw);
      const d = iso !== null || HTTP_DATE.test(raw) ? new Date(raw) : undefined;
      if (d === undefined || Number.isNaN(d.getTime()) || (iso !== null && Number(iso[3]) > daysIn(Number(iso[1]), Number(iso[2])))) {
        throw new TypeError(`'${truncate(raw)}' is not a date`);
      }
      return d;
    };
  }
  const fromString = (type as { fromString?: unknown }).fromString;
  if (typeof fromString === 'function') return (raw) => (fromString as Convert).call(type, raw);
  return undefined; // the caller refuses the parameter (PIPELINE_PARAM_UNCONVERTIBLE), naming where it is
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Plain decimal integers; 16 digits bound the work and cover every safe integer (checked after). */
const INTEGER = /^[+-]?\d{1,16}$/;

/**
 * The value of plain digits (the usual id), else -1: one char loop instead of {@link DECIMAL}
 * plus `Number()`. Up to 15 digits, so the sum stays an exact integer (< 2^53).
 */
function digitsValue(s: string): number {
  if (s.length === 0 || s.length > 15) return -1;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;
const HTTP_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** The `@Context()` types this compiler injects itself, by name, for messages (features add theirs: extensions.ts). */
const BUILT_IN_CONTEXT_TYPES: readonly Function[] = [
  ContainerRequestContext,
  UriInfo,
  HttpHeaders,
  SecurityContext,
  ResourceInfo,
  NodeIncomingMessage,
  NodeServerResponse,
  AbortSignal,
];

/**
 * The resolver of one `@Context()` parameter or field, chosen once at start-up by its type. A type
 * that is none of the injectable ones is refused here: handing such a parameter the internal
 * request object (what happened before) let the method run with a value of the wrong shape, e.g.
 * `sse.newEventBuilder is not a function` at request time. The usual cause is a class imported
 * with `import type` (what `verbatimModuleSyntax` and lint autofixes produce): TypeScript then
 * emits `Object` as its `design:paramtypes` entry (TypeScript handbook, "Decorators", metadata).
 */
function contextResolver(type: TypeToken | undefined, info: ResourceInfo, where: string, at: string): ArgResolver {
  if (type === ContainerRequestContext) return (ex) => ex;
  if (type === UriInfo) return (ex) => new UriInfo(ex);
  if (type === HttpHeaders) return (ex) => new HttpHeaders(ex);
  if (type === SecurityContext) return (ex) => ex.securityContext;
  if (type === ResourceInfo) return (ex) => ex.resourceInfo;
  if (type === NodeIncomingMessage) return (ex): IncomingMessage => ex.raw;
  if (type === NodeServerResponse) return (ex): ServerResponse => ex.rawResponse;
  if (type === AbortSignal) return (ex) => ex.signal;
  // Types added by features (extensions.ts), e.g. server-sent events' sink.
  const factory = contextFactory(type);
  if (factory !== undefined) return factory(info, where);
  throw new ModelProblemError('PIPELINE_CONTEXT_TYPE_UNKNOWN', unknownContextType(type, at));
}

function unknownContextType(type: TypeToken | undefined, at: string): string {
  const injectable = [...BUILT_IN_CONTEXT_TYPES, ...registeredContextTypes()].map((t) => typeName(t)).join(', ');
  const declared = type === undefined ? 'no declared type' : `type ${typeName(type)}`;
  const erased = type === undefined || type === Object || type === Function;
  return (
    `${at}: @Context() has ${declared}, which the pipeline cannot inject` +
    (erased
      ? `: if the class is imported with \`import type\` (or \`import { type X }\`, as verbatimModuleSyntax and lint autofixes write it), ` +
        `TypeScript emits Object in its metadata: import it as a value, not with \`import type\`, or name it: @Context(UriInfo)`
      : `: use one of the injectable types`) +
    `. Injectable types: ${injectable}`
  );
}

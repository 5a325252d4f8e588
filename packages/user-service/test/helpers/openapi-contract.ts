/**
 * Checks responses against the OpenAPI document the service serves: the operation (path template
 * and method) must be documented, the status too, and a JSON body must match the documented
 * schema of its media type. A contract test sends requests and passes every response through
 * {@link Contract.problems}: an undocumented status or a mismatching body is a failure.
 */
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HttpResult } from './server.js';

type Json = Record<string, any>;

/**
 * The pipeline's own document checker (official OpenAPI 3.1 schema, JSON Schema 2020-12 with Ajv),
 * loaded from that package's test helpers where its development dependencies live.
 */
interface SchemaTools {
  openApiProblems(doc: unknown): Promise<string[]>;
  schemaChecker(doc: unknown): (schema: object, value: unknown) => boolean;
}

const PIPELINE_HELPER = join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'pipeline/test/helpers/openapi-schema.ts');

export async function schemaTools(): Promise<SchemaTools> {
  return (await import(pathToFileURL(PIPELINE_HELPER).href)) as SchemaTools;
}

/** The documented operation of a request path: the template whose literal text is longest wins (`/users/search` over `/users/{id}`). */
function findPath(doc: Json, path: string): string | undefined {
  let best: { template: string; literal: number } | undefined;
  for (const template of Object.keys(doc.paths as Json)) {
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    if (!new RegExp(`^${source}/?$`).test(path)) continue;
    const literal = template.replace(/\{[^}]+\}/g, '').length;
    if (best === undefined || literal > best.literal) best = { template, literal };
  }
  return best?.template;
}

/** Resolves a local `$ref` (`#/components/responses/NotFound`). */
function deref(doc: Json, value: Json): Json {
  let v = value;
  for (let i = 0; i < 8 && typeof v.$ref === 'string'; i++) {
    v = (v.$ref as string)
      .slice(2)
      .split('/')
      .reduce((o: Json, k) => o[k] as Json, doc);
  }
  return v;
}

export interface Contract {
  readonly doc: Json;
  /** What is wrong with `res` as an answer to `method path` (empty: it conforms). */
  problems(method: string, path: string, res: HttpResult): string[];
  /** The operations (`get /api/users/{id}`) checked so far: a test can ask that each was exercised. */
  readonly seen: Set<string>;
}

export async function contractOf(doc: Json): Promise<Contract> {
  const tools = await schemaTools();
  const check = tools.schemaChecker(doc);
  const seen = new Set<string>();
  return {
    doc,
    seen,
    problems(method, url, res) {
      const path = url.split('?')[0]!;
      const where = `${method} ${url} → ${res.status}`;
      const template = findPath(doc, path);
      // Automatic OPTIONS and HEAD are left out of the document (OpenAPI documents what the
      // application declares): OPTIONS of a documented path is fine, HEAD is checked as its GET.
      if (method === 'OPTIONS' && template !== undefined && (res.status === 200 || res.status === 204)) return [];
      const lookup = method === 'HEAD' ? 'get' : method.toLowerCase();
      const op = template === undefined ? undefined : (doc.paths[template][lookup] as Json | undefined);
      if (op === undefined) return [`${where}: no documented operation`];
      seen.add(`${lookup} ${template}`);
      const documented = (op.responses as Json)[String(res.status)] ?? (op.responses as Json).default;
      if (documented === undefined)
        return [`${where}: status not documented (documented: ${Object.keys(op.responses as Json).join(', ')})`];
      const response = deref(doc, documented as Json);
      if (method === 'HEAD' || res.status === 204 || res.status === 304 || res.text === '') return [];
      const type = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const content = (response.content ?? {}) as Json;
      const media = content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*'];
      if (media === undefined)
        return [`${where}: media type ${type} not documented (documented: ${Object.keys(content).join(', ') || 'no body'})`];
      // A compressed body (Content-Encoding) is checked by its media type only.
      if (media.schema === undefined || !/[/+]json$/.test(type) || res.headers['content-encoding'] !== undefined) return [];
      return check(media.schema as object, JSON.parse(res.text))
        ? []
        : [`${where}: the body does not match the documented schema: ${res.text.slice(0, 300)}`];
    },
  };
}

/**
 * Checks OpenAPI documents the way a consumer's tooling would: against the official OpenAPI 3.1
 * schema (as shipped, adapted to Ajv, by @seriousme/openapi-schema-validator), and every Schema
 * Object against the JSON Schema 2020-12 meta-schema by compiling it with Ajv.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** What is wrong with `doc` (empty when it is a valid OpenAPI 3.1 document with valid schemas). */
export async function openApiProblems(doc: unknown): Promise<string[]> {
  const validator = new Validator();
  const result = await validator.validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
  const problems: string[] = [];
  if (!result.valid) problems.push(`OpenAPI 3.1 schema: ${JSON.stringify(result.errors).slice(0, 2000)}`);
  try {
    schemaChecker(doc);
  } catch (e) {
    problems.push(`JSON Schema 2020-12: ${(e as Error).message}`);
  }
  return problems;
}

/**
 * A validator of values against the document's schemas (2020-12, `format` as an annotation, as
 * the draft's default vocabulary says): `check({ $ref: '#/components/schemas/User' }, value)`.
 */
export function schemaChecker(doc: unknown): (schema: object, value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  const components = ((doc as { components?: { schemas?: Record<string, object> } }).components?.schemas ?? {}) as Record<string, object>;
  // The components under their own ids, so `#/components/schemas/X` refs resolve from any schema.
  ajv.addSchema({ $id: 'doc', components: { schemas: components } });
  for (const name of Object.keys(components)) ajv.getSchema(`doc#/components/schemas/${name}`);
  return (schema, value) => {
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
    return ajv.validate(rebased, value);
  };
}

/** Module resolution hooks (Node.js `module.register`): `typescript` resolves to the `typescript-5` alias. */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT_5 = pathToFileURL(createRequire(import.meta.url).resolve('typescript-5')).href;

export async function resolve(specifier, context, next) {
  return specifier === 'typescript' ? next(TYPESCRIPT_5, context) : next(specifier, context);
}

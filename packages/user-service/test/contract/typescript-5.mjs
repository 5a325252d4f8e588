/**
 * `node --import ./typescript-5.mjs`: openapi-typescript drives the TypeScript 5 compiler API
 * (its peer dependency), which TypeScript 7's native compiler, the one this repository builds
 * with, does not offer. This resolve hook gives the process the `typescript-5` alias (a
 * development dependency of this package) wherever `typescript` is imported; nothing else changes.
 */
import { register } from 'node:module';

register(new URL('./typescript-5-hooks.mjs', import.meta.url));

/**
 * For the tests of what `build()` refuses: the problems of the one `ModelValidationError` it
 * throws, as `[code, message]` pairs a test compares whole.
 */
import { expect } from 'vitest';
import { ModelValidationError, type Application, type ModelProblemCode } from '../../src/index.js';

/** The problems build() threw, as [code, message]; throws when build() accepts the application. */
export function problemsOf(app: Application): Array<[ModelProblemCode, string]> {
  try {
    app.build();
  } catch (e) {
    expect(e).toBeInstanceOf(ModelValidationError);
    return (e as ModelValidationError).problems.map((p) => [p.code, p.message]);
  }
  throw new Error('build() accepted the application');
}

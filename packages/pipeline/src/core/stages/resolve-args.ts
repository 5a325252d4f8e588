import type { Exchange } from '../internal/exchange.js';
import type { ArgResolver } from '../internal/model.js';
import { collectConversion, finishConversion, ParamConversionError, type ArgumentsValidator } from '../internal/param-conversion.js';

/**
 * The arguments of a method or locator: every resolver runs, even after one failed to convert, so
 * the 400 names every value that does not convert (Jakarta REST 3.1 §3.2 leaves the report to the
 * implementation; Jersey's validation likewise reports all violations in one step). With a
 * failure, the constraints of the values that converted run too (`validate`): both kinds come back
 * in one 400 (`PIPE_VALIDATION` when a constraint failed, else `PIPE_PARAM_CONVERSION`). When every
 * value converts this allocates nothing but the arguments array (the try costs nothing in V8).
 */
export function resolveArguments(ex: Exchange, resolvers: readonly ArgResolver[], validate: ArgumentsValidator | undefined): unknown[] {
  const args = new Array<unknown>(resolvers.length);
  let failed: ParamConversionError | undefined;
  for (let i = 0; i < resolvers.length; i++) {
    try {
      args[i] = resolvers[i]!(ex);
    } catch (e) {
      failed = collectConversion(e, failed);
      if (e instanceof ParamConversionError) args[i] = e.partial;
    }
  }
  if (failed !== undefined) conversionFailed(ex, failed, args, validate);
  return args;
}

function conversionFailed(ex: Exchange, failed: ParamConversionError, args: unknown[], validate: ArgumentsValidator | undefined): never {
  if (validate !== undefined) {
    if (ex.trace !== undefined) ex.trace.push('validation');
    validate(args, failed.details);
  }
  throw finishConversion(failed);
}

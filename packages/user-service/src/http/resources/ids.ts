import { ApiSchema } from '@jaxrs-node/pipeline';
import { parseRecordId, RECORD_ID_RULE } from '../../domain/common/record-id.js';

/**
 * A resource id in a path: a positive decimal integer within the safe range, spelled canonically
 * (no leading zeros, so each record has one URL). The pipeline converts `@PathParam('id') id: Id`
 * through `Id.fromString`, so `abc`, `1.5`, `1e3`, `-1`, `0` or `01` are a 400 before any
 * resource code runs.
 *
 * The parsing is the domain's {@link parseRecordId}. The failure is a plain RangeError on purpose:
 * only the pipeline knows which parameter is being converted, and it turns a converter's non-HTTP
 * error into a 400 whose message and single violation name that parameter (`id`, `orderId`, ...)
 * instead of a hard-coded `id`.
 *
 * `@ApiSchema` tells the OpenAPI document what the conversion accepts (an integer from 1 to the
 * safe maximum), so generated clients take a number for every id.
 */
@ApiSchema({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
export class Id {
  /** @throws RangeError with {@link RECORD_ID_RULE} when `raw` is not a canonical record id. */
  static fromString(raw: string): number {
    const id = parseRecordId(raw, { canonical: true });
    if (id === undefined) throw new RangeError(RECORD_ID_RULE);
    return id;
  }
}

/**
 * A job id in a path, left as text for the domain to parse: `JobService.get` answers an unknown or
 * malformed id with its 404 (`JOB_NOT_FOUND`), as it always has. `@ApiSchema` documents what a valid
 * one spells (the same integers as {@link Id}), so generated clients take a number.
 */
@ApiSchema({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
export class JobIdText {
  /** The text unchanged. */
  static fromString(raw: string): string {
    return raw;
  }
}

/**
 * Record ids that arrive as text (path parameters, job and file ids, scripts): the one parser
 * every entry point uses, so they agree on what an id is. Spelling differs on purpose in one
 * respect: ids in resource paths (`/api/users/{id}`, orders) are canonical, so each record has
 * one URL and `007` is a 400, while file and job ids accept leading zeros as they always did.
 * HTTP parameters go through `Id.fromString`, where the pipeline's conversion error names the
 * parameter.
 *
 * The numeric rule itself (a positive safe integer) is the store's {@link isRecordId}: an id this
 * module accepts is always one the store accepts.
 */
import { isRecordId } from '../../storage/record-codec.js';

/** The violation message for a bad id, the same wherever the id came from. */
export const RECORD_ID_RULE = 'must be a positive integer';

// Plain ASCII digits only: no sign, exponent, `0x`, blanks or path segments. 16 digits bound the
// work and cover every safe integer; isRecordId then refuses 0 and anything above 2^53 - 1.
const DIGITS = /^[0-9]{1,16}$/;

/** How strict {@link parseRecordId} is about the spelling. */
export interface RecordIdSpelling {
  /**
   * Refuse non-canonical spellings, i.e. leading zeros (`007`), so each record has exactly one
   * URL. Default false (`007` is 7).
   */
  canonical?: boolean;
}

/**
 * A record id from a decimal string (or a number): a positive safe integer, else `undefined`.
 * Rejects `../../etc/passwd`, `1/../2`, `%2e%2e`, `1e3`, `-1`, `0x10`, ` 1`, `1.5`, `0` and more
 * than 16 digits.
 *
 * @example parseRecordId('42') // 42
 * @example parseRecordId('007') // 7; with { canonical: true }: undefined
 */
export function parseRecordId(raw: string | number, spelling: RecordIdSpelling = {}): number | undefined {
  if (typeof raw === 'number') return isRecordId(raw) ? raw : undefined;
  if (!DIGITS.test(raw)) return undefined;
  const id = Number(raw);
  if (!isRecordId(id)) return undefined;
  // After DIGITS, the only non-canonical spelling of a valid id is one with leading zeros.
  return spelling.canonical === true && raw.charCodeAt(0) === 48 ? undefined : id;
}

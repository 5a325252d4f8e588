/**
 * On-disk format of the journal: one line per committed batch,
 *
 *     <crc32 of JSON, 8 lower-case hex digits> <space> {"m":[mutations...],"n":[[collection,nextId]...]}\n
 *
 * `n` (optional) persists id counters moved by `allocateId()` so that ids are not handed out
 * twice across a restart. JSON.stringify escapes control characters, so a batch never contains a
 * raw newline and lines can be split on `\n` byte by byte.
 */
import { crc32 } from 'node:zlib';
import { deepFreeze, isRecordId, mutationProblem } from '../record-codec.js';
import { RecordStoreError, type Mutation } from '../record-store.js';

/** One decoded journal line. */
export interface JournalBatch {
  readonly mutations: readonly Mutation[];
  readonly counters: ReadonlyArray<readonly [string, number]>;
}

/** Result of scanning a journal file. */
export interface ParsedJournal {
  readonly batches: JournalBatch[];
  /** Bytes up to and including the last good line; anything after is a torn tail. */
  readonly validLength: number;
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const HEX8 = /^[0-9a-f]{8}$/;

/** Builds the journal line of a batch whose mutations are already JSON text. */
export function encodeLine(mutationsJson: string, counters: ReadonlyArray<[string, number]>): string {
  const json = counters.length === 0 ? `{"m":${mutationsJson}}` : `{"m":${mutationsJson},"n":${JSON.stringify(counters)}}`;
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

function corrupt(file: string, offset: number, why: string): RecordStoreError {
  return new RecordStoreError('ERR_STORE_CORRUPT', `${file}: ${why} at byte ${offset}`);
}

/**
 * Decodes one line (without its newline). Returns `undefined` when the frame is damaged (bad
 * checksum or header): that is what a torn write looks like. A line whose checksum matches but
 * whose content is not a valid batch was written wrong, so it throws.
 */
function decodeLine(buf: Buffer, start: number, end: number, file: string): JournalBatch | undefined {
  if (end - start < 10 || buf[start + 8] !== SPACE) return undefined;
  const hex = buf.toString('latin1', start, start + 8);
  if (!HEX8.test(hex)) return undefined;
  const body = buf.subarray(start + 9, end);
  if (crc32(body) !== Number.parseInt(hex, 16)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw corrupt(file, start, 'checksum matches but JSON is invalid');
  }
  const { m, n } = (value ?? {}) as { m?: unknown; n?: unknown };
  if (!Array.isArray(m) || m.some((x) => mutationProblem(x) !== undefined)) {
    throw corrupt(file, start, 'checksum matches but the batch is malformed');
  }
  const counters = n ?? [];
  const countersOk =
    Array.isArray(counters) && counters.every((c) => Array.isArray(c) && c.length === 2 && typeof c[0] === 'string' && isRecordId(c[1]));
  if (!countersOk) throw corrupt(file, start, 'checksum matches but the counters are malformed');
  for (const x of m as Mutation[]) if (x.op === 'put') deepFreeze(x.record);
  return { mutations: m as Mutation[], counters: counters as Array<[string, number]> };
}

/**
 * Scans a whole journal. A damaged line is tolerated only when no good line follows it: a crash
 * tears the END of the last write, so such a tail was never acknowledged. A damaged line
 * followed by good ones would mean silently dropping acknowledged writes: that throws
 * `ERR_STORE_CORRUPT` and leaves the file untouched for an operator to inspect.
 */
export function parseJournal(buf: Buffer, file: string): ParsedJournal {
  const batches: JournalBatch[] = [];
  let validLength = 0;
  let damagedAt = -1;
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl === -1) break; // incomplete last line: torn
    const batch = decodeLine(buf, pos, nl, file);
    if (batch === undefined) {
      if (damagedAt === -1) damagedAt = pos;
    } else if (damagedAt !== -1) {
      throw corrupt(file, damagedAt, 'damaged line followed by valid lines');
    } else {
      batches.push(batch);
      validLength = nl + 1;
    }
    pos = nl + 1;
  }
  return { batches, validLength };
}

/** File name of journal generation `generation` (zero-padded so `ls` sorts them). */
export function journalName(generation: number): string {
  return `journal-${String(generation).padStart(8, '0')}.jsonl`;
}

/** The generation of a journal file name, or `undefined` for any other file. */
export function journalGeneration(name: string): number | undefined {
  const match = /^journal-(\d{8,})\.jsonl$/.exec(name);
  return match === null ? undefined : Number(match[1]);
}

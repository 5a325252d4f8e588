/**
 * Validation and JSON normalisation of mutation batches, shared by every adapter so that they
 * accept, reject and store exactly the same things.
 *
 * A batch is stringified ONCE (the journal writes that text) and parsed back once: the parsed
 * copy is what memory holds, so the in-memory state always equals what recovery would rebuild
 * (`undefined` fields dropped, `NaN`/`Infinity` become `null`, `Date`s become strings).
 */
import { RecordStoreError, type Mutation, type StoredRecord } from './record-store.js';

/** A validated batch: its JSON text and the normalised, deep-frozen mutations to apply. */
export interface EncodedBatch {
  /** JSON text of the normalised mutations array, e.g. `[{"op":"delete",...}]`. */
  readonly json: string;
  /** The parsed-back, deep-frozen mutations; safe to keep and to share with readers. */
  readonly mutations: readonly Mutation[];
}

/** True for a positive safe integer, the only valid record id. */
export function isRecordId(id: unknown): id is number {
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the shape of one mutation; returns a message describing the first problem, or
 * `undefined` when it is well formed. Used for caller input and for replayed journal lines.
 */
export function mutationProblem(m: unknown): string | undefined {
  if (!isPlainObject(m)) return 'mutation must be an object';
  if (typeof m.collection !== 'string' || m.collection.length === 0) {
    return 'collection must be a non-empty string';
  }
  if (m.op === 'delete') return isRecordId(m.id) ? undefined : 'id must be a positive safe integer';
  if (m.op !== 'put') return `unknown op ${JSON.stringify(m.op)}`;
  if (!isPlainObject(m.record)) return 'record must be a JSON object';
  return isRecordId(m.record.id) ? undefined : 'record.id must be a positive safe integer';
}

function invalid(message: string, cause?: unknown): RecordStoreError {
  return new RecordStoreError('ERR_STORE_INVALID_MUTATION', message, { cause });
}

/**
 * Validates a caller's batch and returns its JSON text plus a normalised deep-frozen copy.
 * Throws `ERR_STORE_INVALID_MUTATION` (and the caller's objects are left untouched) when the
 * batch is malformed or not representable as JSON (cycles, BigInt, absurd nesting).
 */
export function encodeBatch(input: unknown): EncodedBatch {
  if (!Array.isArray(input)) throw invalid('mutations must be an array');
  // Copy only the known fields: extra properties on a mutation object are not persisted.
  // Array.from visits holes of a sparse array (as undefined) where map() would skip them.
  const clean: Mutation[] = Array.from(input, (m: unknown, i) => {
    const problem = mutationProblem(m);
    if (problem !== undefined) throw invalid(`mutation ${i}: ${problem}`);
    // Checked before JSON.stringify: Node 26's V8 stringifies 100 000 levels without the stack
    // overflow older versions threw, and every reader of the record would then have to cope.
    if ((m as Mutation).op === 'put' && nestedDeeperThan((m as { record: unknown }).record, MAX_RECORD_DEPTH)) {
      throw invalid(`mutation ${i}: record is nested deeper than ${MAX_RECORD_DEPTH} levels (or cyclic)`);
    }
    const ok = m as Mutation;
    return ok.op === 'put'
      ? { op: 'put' as const, collection: ok.collection, record: ok.record }
      : { op: 'delete' as const, collection: ok.collection, id: ok.id };
  });
  let json: string;
  try {
    json = JSON.stringify(clean);
  } catch (err) {
    throw invalid('batch is not serialisable as JSON', err);
  }
  const parsed = JSON.parse(json) as Mutation[];
  parsed.forEach((m, i) => {
    if (m.op !== 'put') return;
    const before = (clean[i] as { record: StoredRecord }).record.id;
    // A custom toJSON() can turn the record into anything: re-check what will really be stored.
    if (!isPlainObject(m.record) || m.record.id !== before) {
      throw invalid(`mutation ${i}: record does not serialise to a JSON object with the same id`);
    }
    deepFreeze(m.record);
  });
  return { json, mutations: parsed };
}

/** Nesting a stored record may have: far above any record of the service, far below a stack overflow. */
export const MAX_RECORD_DEPTH = 256;

/** Whether `value` nests objects or arrays deeper than `max` (a cycle counts as too deep). Iterative. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Freezes `value` and everything reachable from it. Iterative on purpose: deeply nested JSON
 * parses fine but overflows the stack of recursive code (RFC 8259 §9 allows limits on nesting).
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}

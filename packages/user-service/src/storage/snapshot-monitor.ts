/**
 * Reporting of background snapshot failures for the journal store.
 *
 * A failed snapshot loses nothing (the journal generations it would have replaced are kept and
 * replayed on restart), but every failure lets the journal grow, so an operator must hear about
 * it. To keep logs readable the monitor reports once per failure STREAK: the first failure, and
 * then the first success after it (recovery). Failures in between are only counted.
 */
import { RecordStoreError } from './record-store.js';

/** What {@link SnapshotReporters.onSnapshotRecovered} receives when a failure streak ends. */
export interface SnapshotRecovery {
  /** Absolute path of the snapshot file that was finally written. */
  readonly file: string;
  /** Journal generation the new snapshot covers up to (exclusive). */
  readonly generation: number;
  /** Failed attempts in the streak that just ended (at least 1). */
  readonly failures: number;
  /** One line for a log, naming the file. */
  readonly message: string;
}

/** Callbacks through which the journal store reports its snapshot health. */
export interface SnapshotReporters {
  /**
   * Called once when snapshots start failing (not again until one succeeds). The error is an
   * `ERR_STORE_SNAPSHOT_FAILED` {@link RecordStoreError} whose message names the file and whose
   * `cause` is the file-system error. Default: `process.emitWarning`, so it is never silent.
   */
  onSnapshotError?: (error: RecordStoreError) => void;
  /** Called once when a snapshot succeeds after failures. Default: `process.emitWarning`. */
  onSnapshotRecovered?: (recovery: SnapshotRecovery) => void;
}

/** Snapshot health of a journal store, as returned by `JournalRecordStore.health()`. */
export interface JournalStoreHealth {
  /** Message of the latest snapshot failure; absent while snapshots succeed. */
  readonly snapshotError?: string;
  /** Consecutive failed snapshot attempts; 0 once one succeeds. */
  readonly snapshotFailures: number;
  /** Bytes in the journal generations not yet covered by a snapshot (replayed on restart). */
  readonly journalBytes: number;
}

/** Which step of a snapshot cycle failed: creating the next journal, or the snapshot itself. */
export type SnapshotStep = 'rotate' | 'snapshot';

const defaultOnError = (error: RecordStoreError): void => process.emitWarning(error);
const defaultOnRecovered = (r: SnapshotRecovery): void => process.emitWarning(r.message, { code: 'ERR_STORE_SNAPSHOT_RECOVERED' });

/** Tracks the current failure streak of one store and reports its start and its end. */
export class SnapshotMonitor {
  private streak = 0;
  private last: RecordStoreError | undefined;
  private readonly onError: (error: RecordStoreError) => void;
  private readonly onRecovered: (recovery: SnapshotRecovery) => void;

  constructor(reporters: SnapshotReporters) {
    this.onError = reporters.onSnapshotError ?? defaultOnError;
    this.onRecovered = reporters.onSnapshotRecovered ?? defaultOnRecovered;
  }

  /** The error of the current failure streak, or `undefined` while snapshots succeed. */
  get error(): RecordStoreError | undefined {
    return this.last;
  }

  /** Consecutive failed attempts so far. */
  get failures(): number {
    return this.streak;
  }

  /** Records a failed attempt at `file`; reports it only if it starts a streak. */
  failed(step: SnapshotStep, file: string, generation: number, cause: unknown): void {
    const what = step === 'rotate' ? `creating journal ${file} for` : `writing ${file} for`;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.last = new RecordStoreError(
      'ERR_STORE_SNAPSHOT_FAILED',
      `journal snapshot failed while ${what} generation ${generation}: ${reason}; ` +
        'no write is lost (the journal keeps growing and is replayed on restart), ' +
        'next attempt at the next snapshot trigger',
      { cause },
    );
    this.streak++;
    if (this.streak === 1) safely(this.onError, this.last);
  }

  /** Records a successful snapshot; reports recovery if it ends a streak. */
  succeeded(file: string, generation: number): void {
    const failures = this.streak;
    this.streak = 0;
    this.last = undefined;
    if (failures === 0) return;
    const message =
      `journal snapshot recovered: wrote ${file} for generation ${generation} ` +
      `after ${failures} failed attempt(s); older journals removed`;
    safely(this.onRecovered, { file, generation, failures, message });
  }
}

/**
 * Calls a reporter, swallowing what it throws: a broken logger must not turn a harmless
 * snapshot failure into a failed store (the snapshot runs inside the store's writer).
 */
function safely<T>(report: (value: T) => void, value: T): void {
  try {
    report(value);
  } catch {
    // Nowhere left to report to; the failure stays visible through health().
  }
}

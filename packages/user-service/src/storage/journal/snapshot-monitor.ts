/**
 * Reporting of failures of the journal store's snapshot cycle (creating the next journal
 * generation, then writing the snapshot).
 *
 * A failed rotation or snapshot loses nothing (the journal generations it would have replaced
 * are kept and replayed on restart), but every failure lets the journal grow, so an operator
 * must hear about it. To keep logs readable the monitor reports per failure STREAK:
 *
 * - the first failure of the streak;
 * - again at the first failed attempt at which the journal (`journalBytes`, the bytes a restart
 *   would replay) has reached 2x, 4x, 8x, ... its size at the streak's first failure, so an
 *   operator who missed the first line still learns that the journal keeps growing. At most one
 *   report per attempt; a streak of k attempts at a steady write rate yields about log2(k) lines;
 * - the first success after it (recovery).
 *
 * Other failures in between are only counted (see `health()`).
 */
import { RecordStoreError } from '../record-store.js';

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
   * Called when rotations or snapshots start failing, and again during the same failure streak
   * each time the journal has doubled in size since the streak's first failure (not for other
   * failures). The error is an `ERR_STORE_SNAPSHOT_FAILED` {@link RecordStoreError} whose message
   * names the step ("journal rotation failed" / "journal snapshot failed") and the file, and whose
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

/** Tracks the current failure streak of one store and reports its start, growth and end. */
export class SnapshotMonitor {
  private streak = 0;
  private last: RecordStoreError | undefined;
  /** `journalBytes` at the first failure of the current streak. */
  private streakStartBytes = 0;
  /** A failed attempt with at least this many journal bytes is reported again. */
  private nextReportAt = 0;
  private readonly onError: (error: RecordStoreError) => void;
  private readonly onRecovered: (recovery: SnapshotRecovery) => void;

  constructor(reporters: SnapshotReporters) {
    this.onError = reporters.onSnapshotError ?? defaultOnError;
    this.onRecovered = reporters.onSnapshotRecovered ?? defaultOnRecovered;
  }

  /** The latest failure of the current streak, or `undefined` while snapshots succeed. */
  get error(): RecordStoreError | undefined {
    return this.last;
  }

  /** Consecutive failed attempts so far. */
  get failures(): number {
    return this.streak;
  }

  /**
   * Records a failed attempt at `file`, made while the journal held `journalBytes` bytes not
   * covered by a snapshot. Reports it if it starts a streak or if the journal has doubled again
   * (see the module comment).
   */
  failed(step: SnapshotStep, file: string, generation: number, journalBytes: number, cause: unknown): void {
    this.streak++;
    let report = false;
    if (this.streak === 1) {
      this.streakStartBytes = journalBytes;
      // Doubling needs a non-zero base; a journal that empty cannot really fail a snapshot.
      this.nextReportAt = 2 * Math.max(journalBytes, 1);
      report = true;
    } else if (journalBytes >= this.nextReportAt) {
      while (this.nextReportAt <= journalBytes) this.nextReportAt *= 2;
      report = true;
    }
    this.last = new RecordStoreError('ERR_STORE_SNAPSHOT_FAILED', this.describe(step, file, generation, journalBytes, cause), {
      cause,
    });
    if (report) safely(this.onError, this.last);
  }

  private describe(step: SnapshotStep, file: string, generation: number, journalBytes: number, cause: unknown): string {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const head =
      step === 'rotate'
        ? `journal rotation failed while creating ${file} for generation ${generation}: ${reason}; ` +
          'no write is lost (the store keeps appending to its current journal, replayed on restart)'
        : `journal snapshot failed while writing ${file} for generation ${generation}: ${reason}; ` +
          'no write is lost (every journal is kept and replayed on restart)';
    const streak =
      this.streak === 1
        ? ''
        : `; still failing after ${this.streak} attempts, the journal grew from ${this.streakStartBytes} ` + `to ${journalBytes} bytes`;
    return `${head}${streak}; next attempt at the next snapshot trigger`;
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

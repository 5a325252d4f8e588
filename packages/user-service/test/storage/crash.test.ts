/**
 * Crash test: a child process commits pairs of records as fast as it can and prints every
 * acknowledged commit; we SIGKILL it mid-burst, recover the directory in-process and check that
 * every acknowledged write survived with its exact content, every acknowledged delete stayed
 * deleted, no batch is half-applied and no id is reused. Three rounds on the same directory, so
 * later rounds also recover over earlier crashes (torn tails, interrupted snapshots).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalRecordStore } from '../../src/storage/index.js';
import { expectedPair, lastStep, type PairRecord } from './fixtures/crash-records.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const ROUNDS = 3;
const ROUND_DEADLINE_MS = 4_000;

let work: string;
let entry: string;

/** The child needs plain JS: compile src/storage alone (hermetic: no stale dist, no other files). */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'crash-test-'));
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const out = join(work, 'build');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(FIXTURES, 'tsconfig.crash.json'), '--outDir', out]);
  await writeFile(join(out, 'package.json'), '{"type":"module"}');
  entry = join(out, 'index.js');
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Round {
  /** Last acknowledged step per pair, keyed by `a`. */
  acked: Map<number, { b: number; step: number }>;
  ackLines: number;
}

/** Runs the writer until it has acknowledged `killAfter` commits (or the deadline), then kill -9. */
async function runAndKill(dir: string, killAfter: number, round: Round): Promise<void> {
  const child = spawn(process.execPath, [join(FIXTURES, 'crash-writer.mjs'), entry, dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let buffered = '';
  // 'close' fires after the process exited AND its stdio ended: every ack line has been read.
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const deadline = setTimeout(() => child.kill('SIGKILL'), ROUND_DEADLINE_MS);
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'READY') continue;
      const [step, a, b] = line.split(' ').map(Number) as [number, number, number];
      round.ackLines++;
      const prev = round.acked.get(a);
      if (prev === undefined || step > prev.step) round.acked.set(a, { b, step });
    }
    if (round.ackLines >= killAfter) child.kill('SIGKILL');
  });
  const code = await closed;
  clearTimeout(deadline);
  expect(code, `writer exited by itself: ${stderr}`).toBeNull();
  expect(stderr).toBe('');
}

describe('JournalRecordStore under kill -9', () => {
  it('keeps every acknowledged write and delete, atomically, across three crashes', async () => {
    const dir = join(work, 'store');
    const acked = new Map<number, { b: number; step: number }>();
    const verified = new Map<number, { b: number; state: string }>(); // state after a recovery
    for (let r = 0; r < ROUNDS; r++) {
      const round: Round = { acked, ackLines: 0 };
      await runAndKill(dir, 60 + Math.floor(Math.random() * 400), round);
      expect(round.ackLines).toBeGreaterThan(0);

      const store = new JournalRecordStore({ dir });
      await store.open();
      const stateOf = (a: number, b: number): string =>
        JSON.stringify([store.get<PairRecord>('users', a), store.get<PairRecord>('users', b)]);
      let maxId = 0;
      for (const [a, { b, step }] of acked) {
        const allowed = [JSON.stringify(expectedPair(a, b, step))];
        // The next step of the pair may have been in flight: written but not acknowledged.
        if (step < lastStep(a)) allowed.push(JSON.stringify(expectedPair(a, b, step + 1)));
        expect(allowed, `pair ${a},${b} acknowledged up to step ${step}`).toContain(stateOf(a, b));
        maxId = Math.max(maxId, b);
      }
      for (const record of store.values<PairRecord>('users')) {
        const [a, b] = record.pair;
        // A pair with no acknowledged step can only hold its first batch, whole.
        if (!acked.has(a)) expect(stateOf(a, b)).toBe(JSON.stringify(expectedPair(a, b, 1)));
        maxId = Math.max(maxId, b);
      }
      // Once recovered, a pair never changes again: later rounds only write new pairs.
      for (const [a, { b, state }] of verified) {
        expect(stateOf(a, b), `pair ${a},${b} changed after recovery`).toBe(state);
      }
      for (const [a, { b }] of acked) verified.set(a, { b, state: stateOf(a, b) });
      for (const {
        pair: [a, b],
      } of store.values<PairRecord>('users')) {
        verified.set(a, { b, state: stateOf(a, b) });
      }
      expect(await store.allocateId('users')).toBeGreaterThan(maxId);
      console.info(
        `crash round ${r + 1}: ${round.ackLines} acks, ${store.size('users')} records, ` +
          `replayed ${store.stats.replayedBatches} batches, cut ${store.stats.truncatedBytes} bytes`,
      );
      await store.close();
    }
  });
});

/**
 * Runs the RecordStore contract (test/storage/record-store-contract.ts) against the
 * FakeRecordStore the domain tests use, in each visibility mode, so a domain test passing on the
 * fake says something about the real adapters. Not modelled, on purpose: the open/close
 * lifecycle (domain tests use the fake without opening it), and in `deferred` mode synchronous
 * visibility (deferring it is what that mode is for: it exposes races the real stores hide).
 */
import { describeRecordStoreContract } from '../storage/record-store-contract.js';
import { FakeRecordStore } from './fake-store.js';

const LIFECYCLE = ['refuses every call before open()', 'refuses writes after close() and cannot be reopened'];

describeRecordStoreContract('FakeRecordStore (visibility: sync)', async () => new FakeRecordStore({ visibility: 'sync' }), LIFECYCLE);
describeRecordStoreContract('FakeRecordStore (visibility: deferred)', async () => new FakeRecordStore({ visibility: 'deferred' }), [
  ...LIFECYCLE,
  'shows a whole batch to readers synchronously, inside the commit() call',
]);

/** The one record-id parser (record-id.ts). */
import { describe, expect, it } from 'vitest';
import { parseRecordId } from '../../../src/domain/common/record-id.js';
import { isRecordId } from '../../../src/storage/record-codec.js';

const BAD = [
  '',
  '0',
  '-1',
  '+1',
  '1e3',
  '1.5',
  '0x10',
  ' 1',
  '1 ',
  '1/../2',
  '../../etc/passwd',
  '%31',
  'abc',
  '9007199254740992',
  '12345678901234567',
  '99999999999999999999',
  '١',
];

describe('parseRecordId', () => {
  it('accepts exactly the ids the store accepts', () => {
    for (const raw of ['1', '42', '9007199254740991']) {
      const id = parseRecordId(raw);
      expect(id).toBe(Number(raw));
      expect(isRecordId(id)).toBe(true);
    }
  });

  it.each(BAD)('rejects %j in both spellings', (raw) => {
    expect(parseRecordId(raw)).toBeUndefined();
    expect(parseRecordId(raw, { canonical: true })).toBeUndefined();
  });

  it('takes a number that is a positive safe integer as it is, in both spellings', () => {
    for (const raw of [1, 12, Number.MAX_SAFE_INTEGER]) {
      expect(parseRecordId(raw)).toBe(raw);
      expect(parseRecordId(raw, { canonical: true })).toBe(raw);
    }
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects the number %s in both spellings', (raw) => {
    expect(parseRecordId(raw)).toBeUndefined();
    expect(parseRecordId(raw, { canonical: true })).toBeUndefined();
  });

  it('reads leading zeros by default and refuses them when canonical', () => {
    expect(parseRecordId('007')).toBe(7);
    expect(parseRecordId('0000000000000001')).toBe(1);
    expect(parseRecordId('007', { canonical: true })).toBeUndefined();
    expect(parseRecordId('00', { canonical: true })).toBeUndefined();
    expect(parseRecordId('7', { canonical: true })).toBe(7);
    expect(parseRecordId('1000000000000000', { canonical: true })).toBe(1e15);
  });
});

// `contentLengthValue` reads the usual Content-Length digit by digit instead of `Number`: the
// answer must be `Number`'s for every string, the digits it reads itself and the rest it hands on.
import { describe, expect, it } from 'vitest';
import { contentLengthValue } from '../../src/core/internal/readers.js';

describe('contentLengthValue', () => {
  it('equals Number(value) for edge cases', () => {
    const cases = [
      '0',
      '7',
      '73',
      '007',
      '1048576',
      '999999999999999',
      '9999999999999999',
      '12345678901234567890',
      '',
      ' 12',
      '12 ',
      '+5',
      '-5',
      '1e3',
      '0x10',
      '1.5',
      '١٢',
      'abc',
      '12a',
      'Infinity',
    ];
    for (const v of cases) expect([v, contentLengthValue(v)]).toEqual([v, Number(v)]);
  });

  it('equals Number(value) for random digit strings of 1 to 20 digits', () => {
    let seed = 42;
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    for (let i = 0; i < 2000; i++) {
      const length = 1 + (next() % 20);
      let v = '';
      for (let j = 0; j < length; j++) v += String(next() % 10);
      expect(contentLengthValue(v)).toBe(Number(v));
    }
  });
});

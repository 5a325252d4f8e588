import { describe, expect, it } from 'vitest';
import { headerName } from '../../src/core/http/header-name.js';

describe('headerName', () => {
  it('lower-cases header names, the same before and after the cache is full', () => {
    expect(headerName('X-Request-Id')).toBe('x-request-id');
    expect(headerName('X-Request-Id')).toBe('x-request-id'); // remembered
    for (let i = 0; i < 1000; i++) expect(headerName(`X-Custom-${i}`)).toBe(`x-custom-${i}`);
    expect(headerName('X-After-Full')).toBe('x-after-full');
    expect(headerName('content-type')).toBe('content-type');
    const long = `X-${'A'.repeat(200)}`;
    expect(headerName(long)).toBe(long.toLowerCase()); // too long to be remembered, still right
  });

  it('answers alternating names correctly through its two-entry memo, including names it cannot remember', () => {
    const long = `X-${'B'.repeat(100)}`;
    const asked = ['X-Bench-Reject', 'X-Bench-Filter', 'X-Bench-Reject', long, 'X-Bench-Filter', 'Accept', long, 'X-Bench-Reject', ''];
    for (let round = 0; round < 3; round++) for (const name of asked) expect(headerName(name)).toBe(name.toLowerCase());
  });
});

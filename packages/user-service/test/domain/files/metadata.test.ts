import { describe, expect, it } from 'vitest';
import { contentDisposition, normalizeMediaType, parseFileId, sanitizeFilename, sanitizeText } from '../../../src/domain/files/metadata.js';

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['a/b\\c.txt', 'abc.txt'],
    ['nul\u0000byte\u001f.txt', 'nulbyte.txt'],
    ['c1\u0085control', 'c1control'],
    ['bidi\u202Egnp.exe', 'bidignp.exe'],
    ['  padded.txt  ', 'padded.txt'],
    ['...', 'upload'],
    ['', 'upload'],
    [undefined, 'upload'],
    ['lone\uD800surrogate', 'lone\uFFFDsurrogate'],
    ['cafe\u0301.txt', 'café.txt'], // NFC
  ])('%j -> %j', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  it('cuts at 255 code points without splitting a surrogate pair', () => {
    const name = sanitizeFilename('😀'.repeat(300));
    expect(Array.from(name)).toHaveLength(255);
    expect(name).toBe('😀'.repeat(255));
  });
});

describe('sanitizeText', () => {
  it('keeps tabs and newlines, drops other controls, repairs lone surrogates', () => {
    expect(sanitizeText('a\tb\r\nc\u0000d\u001be\uDC00')).toBe('a\tb\r\ncde\uFFFD');
  });
});

describe('normalizeMediaType', () => {
  it.each([
    ['text/plain', 'text/plain'],
    ['Application/VND.API+JSON', 'application/vnd.api+json'],
    ['image/svg+xml', 'image/svg+xml'],
    [undefined, 'application/octet-stream'],
    ['text', 'application/octet-stream'],
    ['text/plain; charset=utf-8', 'application/octet-stream'],
    ['text/pl ain', 'application/octet-stream'],
    ['a/b/c', 'application/octet-stream'],
    ['"x"/y', 'application/octet-stream'],
  ])('%j -> %j', (raw, expected) => {
    expect(normalizeMediaType(raw)).toBe(expected);
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and an RFC 8187 filename*', () => {
    expect(contentDisposition('plain.txt')).toBe(`attachment; filename="plain.txt"; filename*=UTF-8''plain.txt`);
    expect(contentDisposition('résumé "v2".pdf')).toBe(
      `attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`,
    );
  });

  it('replaces backslash and %, encodes the characters RFC 8187 attr-char excludes', () => {
    expect(contentDisposition("it's (100%)*.txt")).toBe(
      `attachment; filename="it's (100_)*.txt"; filename*=UTF-8''it%27s%20%28100%25%29%2A.txt`,
    );
    expect(contentDisposition('a\\b')).toBe(`attachment; filename="ab"; filename*=UTF-8''ab`);
  });

  it('uses one _ per astral character and never throws on lone surrogates', () => {
    expect(contentDisposition('😀.png')).toBe(`attachment; filename="_.png"; filename*=UTF-8''%F0%9F%98%80.png`);
    expect(() => contentDisposition('\uD800.bin')).not.toThrow();
  });

  it('cannot be made to inject header syntax', () => {
    const header = contentDisposition('x"; filename="evil.exe\r\nSet-Cookie: a=b');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header.match(/"/g)).toHaveLength(2); // only the pair around the fallback
  });
});

// Which inputs are ids is parseRecordId's rule, tested in full in record-id.test.ts; here one
// input of each kind shows parseFileId answers with that rule (canonical spellings only, as users and orders).
describe('parseFileId', () => {
  it('returns the id of canonical decimal strings and numbers naming positive safe integers', () => {
    expect(parseFileId('1')).toBe(1);
    expect(parseFileId('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseFileId(12)).toBe(12);
  });

  it.each([
    '', // empty
    '0', // zero
    '007', // leading zeros: one URL per file
    '01', // leading zero
    '-1', // a sign
    '1e3', // not plain digits
    ' 1', // blanks
    '../../etc/passwd', // a path
    '%31', // percent-encoded
    '9007199254740992', // past the safe integers
    '12345678901234567', // more than 16 digits
    '١', // non-ASCII digits
  ])('answers %j like an absent file: 404 FILE_NOT_FOUND', (raw) => {
    expect(() => parseFileId(raw)).toThrow(expect.objectContaining({ status: 404, code: 'FILE_NOT_FOUND' }));
  });

  it.each([0, 1.5, Number.NaN, 2 ** 53])('answers the number %s like an absent file: 404 FILE_NOT_FOUND', (raw) => {
    expect(() => parseFileId(raw)).toThrow(expect.objectContaining({ status: 404, code: 'FILE_NOT_FOUND' }));
  });
});

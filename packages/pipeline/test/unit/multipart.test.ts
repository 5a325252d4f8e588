// The multipart pieces on their own: the parser against every way a socket can split a body (the
// delimiter, the header block and the end split anywhere; delimiter look-alikes in the data, RFC
// 2046 §5.1.1), the header-size limit to the byte, EntityPart's helpers and factory, safeFilename,
// the limits' validation, and parts kept for @FormParam in temporary files that go with the response.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Application, FormParam, Path, POST } from '../../src/index.js';
import {
  DEFAULT_MULTIPART_LIMITS,
  EntityPart,
  KEEP_IN_MEMORY_BYTES,
  MultipartFeature,
  readMultipart,
  safeFilename,
} from '../../src/features/multipart/index.js';
import { BOUNDARY, bytes, fieldPart, filePart, multipart, MULTIPART_TYPE, type Part } from '../helpers/multipart-bodies.js';

/** `body` delivered in slices of `size` bytes. */
function sliced(body: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) chunks.push(body.subarray(at, at + size));
  return Readable.from(chunks, { objectMode: false });
}

async function readAll(input: Readable, limits = {}): Promise<Array<{ name: string; headers: unknown; data: string }>> {
  const out = [];
  for await (const part of readMultipart(input, { 'content-type': MULTIPART_TYPE }, limits)) {
    out.push({ name: part.name, headers: part.headers, data: (await part.buffer()).toString('latin1') });
  }
  return out;
}

const tricky: Part[] = [
  fieldPart('a', `almost --${BOUNDARY} and \r\n--${BOUNDARY.slice(0, -1)} but not`),
  filePart('b', Buffer.from(`x--${BOUNDARY}\r\n\r\n--${BOUNDARY.slice(0, 9)}\r\r\n\r`), 'b.bin', 'application/octet-stream'),
  { headers: ['Content-Disposition: form-data; name="c"', 'X-Folded: one', ' two'], body: '' },
];

describe('the multipart parser', () => {
  it('reads the same parts and headers however the body is split', async () => {
    const body = multipart(tricky);
    const whole = await readAll(Readable.from([body]));
    expect(whole.map((p) => [p.name, p.data])).toEqual([
      ['a', `almost --${BOUNDARY} and \r\n--${BOUNDARY.slice(0, -1)} but not`],
      ['b', `x--${BOUNDARY}\r\n\r\n--${BOUNDARY.slice(0, 9)}\r\r\n\r`],
      ['c', ''],
    ]);
    expect(whole[2]!.headers).toEqual({ 'content-disposition': 'form-data; name="c"', 'x-folded': 'one two' });
    for (let size = 1; size <= BOUNDARY.length + 8; size++) {
      expect(await readAll(sliced(body, size)), `slices of ${size}`).toEqual(whole);
    }
  });

  it('holds a header block to headerSize, to the byte, wherever the chunks end', async () => {
    const block = (pad: number): Buffer => multipart([fieldPart('h', 'v', [`X-Pad: ${'p'.repeat(pad)}`])]);
    // The block: the two header lines with their CRLFs and the blank line.
    const size = (pad: number): number => `Content-Disposition: form-data; name="h"\r\nX-Pad: ${'p'.repeat(pad)}\r\n\r\n`.length;
    const limits = { headerSize: size(100) };
    for (const slice of [1, 7, 4096]) {
      await expect(readAll(sliced(block(100), slice), limits)).resolves.toHaveLength(1);
      await expect(readAll(sliced(block(101), slice), limits)).rejects.toMatchObject({
        status: 413,
        code: 'PIPE_MULTIPART_HEADER_TOO_LARGE',
      });
    }
  });

  it('drains the rest of a part whose content the reader left with break, and goes on', async () => {
    const body = readMultipart(Readable.from([multipart([filePart('big', bytes(200_000)), fieldPart('after', 'yes')])]), {
      'content-type': MULTIPART_TYPE,
    });
    const first = (await body.next())!;
    for await (const _ of first.content) break;
    const second = await body.next();
    expect([second?.name, await second?.text(), await body.next()]).toEqual(['after', 'yes', undefined]);
    expect(body.complete).toBe(true);
  });

  it('refuses a second next() while one is pending', async () => {
    const input = new Readable({ read() {} });
    const body = readMultipart(input, { 'content-type': MULTIPART_TYPE });
    const pending = body.next();
    await expect(body.next()).rejects.toThrow(/before the previous call settled/);
    input.push(multipart([fieldPart('x', '1')]));
    input.push(null);
    expect((await pending)?.name).toBe('x');
  });

  it('checks the headers before reading anything', () => {
    const input = Readable.from([Buffer.from('x')]);
    expect(() => readMultipart(input, { 'content-type': 'application/json' })).toThrow(expect.objectContaining({ status: 415 }));
    expect(() => readMultipart(input, {})).toThrow(expect.objectContaining({ status: 415 }));
    expect(() => readMultipart(input, { 'content-type': 'multipart/form-data; boundary=' })).toThrow(
      expect.objectContaining({ status: 400, code: 'PIPE_MULTIPART_BOUNDARY' }),
    );
    expect(() => readMultipart(input, { 'content-type': MULTIPART_TYPE, 'content-length': '101' }, { totalSize: 100 })).toThrow(
      expect.objectContaining({ status: 413, code: 'PIPE_BODY_TOO_LARGE' }),
    );
    expect(input.readableFlowing).toBeNull();
  });
});

describe('EntityPart', () => {
  const read = async (parts: Part[]): Promise<EntityPart> =>
    (await readMultipart(Readable.from([multipart(parts)]), { 'content-type': MULTIPART_TYPE }).next())!;

  it('decodes text in the part charset, refuses bad bytes (400) and unknown charsets (415), parses JSON', async () => {
    const latin1 = await read([
      {
        headers: ['Content-Disposition: form-data; name="t"; filename="t"', 'Content-Type: text/plain; charset=ISO-8859-1'],
        body: Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      },
    ]);
    expect(await latin1.text()).toBe('caf\u00e9');
    const bad = await read([filePart('t', Buffer.from([0xff, 0xfe]))]);
    await expect(bad.text()).rejects.toMatchObject({ status: 400, code: 'PIPE_INVALID_TEXT' });
    const odd = await read([filePart('t', 'x', 't', 'text/plain; charset=koi8-r')]);
    await expect(odd.text()).rejects.toMatchObject({ status: 415, code: 'PIPE_UNSUPPORTED_CHARSET' });
    const json = await read([filePart('j', '{"a":[1,2]}', 'j.json', 'application/json')]);
    expect(await json.json()).toEqual({ a: [1, 2] });
    const poisoned = await read([filePart('j', '{"__proto__":{"x":1}}', 'j.json', 'application/json')]);
    await expect(poisoned.json()).rejects.toMatchObject({ status: 400, code: 'PIPE_JSON_FORBIDDEN_KEY' });
  });

  it('pipes into a writable with the byte count, and skips', async () => {
    const part = await read([filePart('f', bytes(100_000))]);
    const hash = createHash('sha256');
    expect(await part.pipeTo(hash)).toBe(100_000);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(bytes(100_000)).digest('hex'));
    const skipped = await read([filePart('f', bytes(10))]);
    await skipped.skip();
    expect(skipped.content.readableEnded).toBe(true);
  });

  it('makes parts to write with media types by value and refuses header injection', async () => {
    expect(EntityPart.of('s', 'text').mediaType.essence).toBe('text/plain');
    expect(EntityPart.of('b', Buffer.from('x')).mediaType.essence).toBe('application/octet-stream');
    expect(EntityPart.of('o', { a: 1 }).mediaType.essence).toBe('application/json');
    expect(await EntityPart.of('o', { a: 1 }).text()).toBe('{"a":1}');
    const f = EntityPart.of('f', Buffer.from('x'), { filename: '../x.txt', mediaType: 'image/png', headers: { 'X-Id': '1' } });
    expect([f.filename, f.safeFilename, f.isFile, f.headers]).toEqual([
      '../x.txt',
      'x.txt',
      true,
      { 'x-id': '1', 'content-type': 'image/png' },
    ]);
    expect(() => EntityPart.of('h', 'x', { headers: { 'X-Evil': 'a\r\nSet-Cookie: x' } })).toThrow(TypeError);
    expect(() => EntityPart.of('h', 'x', { mediaType: 'text/*' })).toThrow(/invalid media type/);
  });
});

describe('safeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system.ini', 'system.ini'],
    ['C:\\Users\\a\\photo.jpg', 'photo.jpg'],
    ['..', undefined],
    ['', undefined],
    ['a..b...c', 'a.b.c'],
    ['.hidden', 'hidden'],
    ['name. ', 'name'],
    ['nul\u0000byte\u0007.txt', 'nulbyte.txt'],
    ['evil\u202Etxt.exe', 'eviltxt.exe'],
    ['e\u0301t\u00e9.txt', '\u00e9t\u00e9.txt'],
    [undefined, undefined],
  ])('%j → %j', (input, expected) => {
    expect(safeFilename(input)).toBe(expected);
  });

  it('cuts to 255 code points, never inside a surrogate pair', () => {
    const name = safeFilename(`${'\u{1F600}'.repeat(300)}.txt`)!;
    expect(Array.from(name)).toHaveLength(255);
    expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name); // a lone surrogate would come back as U+FFFD
  });
});

describe('limits', () => {
  it('documents its defaults', () => {
    expect(DEFAULT_MULTIPART_LIMITS).toEqual({
      partSize: 10 * 1024 * 1024,
      parts: 100,
      fieldSize: 64 * 1024,
      headerSize: 16 * 1024,
      totalSize: 100 * 1024 * 1024,
    });
  });

  it.each([
    [{ partsize: 1 }, /MultipartFeature: 'partsize' is not a multipart limit/],
    [{ partSize: 0 }, /MultipartFeature: limits.partSize must be a positive integer/],
    [{ fieldSize: 1.5 }, /limits.fieldSize must be a positive integer/],
    [{ headerSize: 16 * 1024 + 1 }, /limits.headerSize must be at most 16384/],
  ])('refuses %j at construction', (limits, message) => {
    expect(() => new MultipartFeature({ limits: limits as never })).toThrow(message);
  });
});

describe('parts kept for @FormParam', () => {
  let dirsDuring = -1;
  @Path('/keep')
  class Keep {
    @POST()
    async keep(@FormParam('file') file: EntityPart, @FormParam('small') small: EntityPart): Promise<unknown> {
      dirsDuring = (await spoolDirs()).length;
      const hash = createHash('sha256');
      await file.pipeTo(hash);
      return { sha256: hash.digest('hex'), small: await small.text(), filename: file.filename };
    }
  }
  const spoolDirs = async (): Promise<string[]> => (await readdir(tmpdir())).filter((n) => n.startsWith('jaxrs-multipart-'));

  it('keeps a large part in a temporary file, a small one in memory, and removes the file with the response', async () => {
    const before = (await spoolDirs()).length;
    const app = new Application({ resources: [Keep], providers: [new MultipartFeature()] });
    app.build();
    const content = bytes(KEEP_IN_MEMORY_BYTES * 3);
    const body = multipart([filePart('file', content, 'big.bin'), filePart('small', 'tiny')]);
    const r = await app.inject({ method: 'POST', url: '/keep', headers: { 'content-type': MULTIPART_TYPE }, body });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ sha256: createHash('sha256').update(content).digest('hex'), small: 'tiny', filename: 'big.bin' });
    expect(dirsDuring).toBe(before + 1);
    const deadline = Date.now() + 5000;
    while ((await spoolDirs()).length > before && Date.now() < deadline) await new Promise((res) => setImmediate(res));
    expect((await spoolDirs()).length).toBe(before);
  });
});

import { createHash } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { FileBody } from '@jaxrs-node/pipeline';
import { downloadHeaders, FileStore, type FileStoreOptions } from '../../../src/domain/files/service.js';
import { JournalRecordStore, MemoryRecordStore } from '../../../src/storage/index.js';
import { until } from '../../helpers/poll.js';
import { useTempDirs } from '../../storage/temp-dirs.js';
import {
  binaryContent,
  bodyStream,
  expectHttpError,
  fieldPart,
  filePart,
  multipartBody,
  multipartHeaders,
  storedFiles,
} from './uploads-multipart.js';

const tempDir = useTempDirs('files-test');

async function setup(limits: Partial<FileStoreOptions> = {}) {
  const dir = await tempDir();
  const store = new MemoryRecordStore();
  await store.open();
  const files = new FileStore({ dir, store, ...limits });
  await files.init();
  return { dir, store, files };
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The whole content of a FileBody, read as the pipeline reads it (open, one slice, close). */
async function content(file: FileBody): Promise<string> {
  const reader = await file.open();
  try {
    const slice = reader.slice(0, file.length);
    return slice instanceof Uint8Array ? Buffer.from(slice).toString('utf8') : await text(slice);
  } finally {
    reader.close();
  }
}

describe('FileStore.upload: success', () => {
  it('stores the exact bytes under <id>.bin and commits the metadata record', async () => {
    const { dir, store, files } = await setup();
    const content = binaryContent(2 * 1024 * 1024 + 17); // many chunks, with backpressure
    const body = multipartBody([fieldPart('description', 'quarterly report'), filePart(content, 'report.pdf', 'application/pdf')]);
    const record = await files.upload(bodyStream(body), multipartHeaders(body));
    expect(record).toMatchObject({
      id: 1,
      filename: 'report.pdf',
      size: content.length,
      contentType: 'application/pdf',
      description: 'quarterly report',
    });
    expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/); // whole seconds, as the API promises
    expect(store.get('files', 1)).toEqual(record);
    expect(await storedFiles(dir)).toEqual(['1.bin']);
    expect(sha(await readFile(join(dir, 'files', '1.bin')))).toBe(sha(content));
  });

  it('shows a record stored with milliseconds (before timestamps were cut to seconds) in seconds', async () => {
    const { store, files } = await setup();
    await store.commit([
      {
        op: 'put',
        collection: 'files',
        record: { id: 7, filename: 'old.txt', size: 1, contentType: 'text/plain', createdAt: '2026-01-02T03:04:05.678Z' },
      },
    ]);
    expect(files.get('7').createdAt).toBe('2026-01-02T03:04:05Z');
  });

  it('serves the same bytes back through open(), with the stat size', async () => {
    const { files } = await setup();
    const body = multipartBody([filePart('hello world\n')]);
    const record = await files.upload(bodyStream(body), multipartHeaders(body));
    const opened = await files.open(String(record.id));
    expect(opened.size).toBe(12);
    expect(opened.record).toEqual(record);
    expect(await content(opened.file)).toBe('hello world\n');
  });

  it('keeps metadata and content across a store restart (durable before resolve)', async () => {
    const dir = await tempDir();
    const first = new JournalRecordStore({ dir: join(dir, 'db') });
    await first.open();
    const body = multipartBody([filePart('durable bytes', 'd.txt')]);
    const record = await new FileStore({ dir, store: first }).upload(bodyStream(body), multipartHeaders(body));
    await first.close();

    const second = new JournalRecordStore({ dir: join(dir, 'db') });
    await second.open();
    const files = new FileStore({ dir, store: second });
    expect(await files.init()).toBe(0);
    const opened = await files.open(record.id);
    expect(opened.record).toEqual(record);
    expect(await content(opened.file)).toBe('durable bytes');
    await second.close();
  });

  it('accepts a file of exactly maxFileBytes', async () => {
    const { files } = await setup({ maxFileBytes: 1024 });
    const body = multipartBody([filePart(binaryContent(1024))]);
    await expect(files.upload(bodyStream(body, 100), multipartHeaders())).resolves.toMatchObject({ size: 1024 });
  });

  it('keeps a valid part media type and ignores unknown fields and files', async () => {
    const { files } = await setup({ maxFiles: 2 });
    const body = multipartBody([
      fieldPart('other', 'x'),
      filePart('ignored', 'a.txt', 'text/plain', 'attachment'),
      filePart('PNG', 'p.png', 'IMAGE/PNG'),
    ]);
    const record = await files.upload(bodyStream(body), multipartHeaders());
    expect(record).toMatchObject({ filename: 'p.png', contentType: 'image/png', size: 3 });
    expect(record).not.toHaveProperty('description');
  });

  it('reports a file part without Content-Type as text/plain (RFC 7578 §4.4 default)', async () => {
    const { files } = await setup();
    const body = multipartBody([{ headers: ['Content-Disposition: form-data; name="file"; filename="n.txt"'], body: 'n' }]);
    expect((await files.upload(bodyStream(body), multipartHeaders())).contentType).toBe('text/plain');
  });

  it('reads the filename as UTF-8 (filename*= and raw UTF-8 in filename=)', async () => {
    const { files } = await setup();
    const raw = multipartBody([filePart('x', 'résumé.txt')]);
    expect((await files.upload(bodyStream(raw), multipartHeaders())).filename).toBe('résumé.txt');
    const ext = multipartBody([{ headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''%E2%82%AC.txt`], body: 'y' }]);
    expect((await files.upload(bodyStream(ext), multipartHeaders())).filename).toBe('€.txt');
  });
});

describe('FileStore.upload: hostile filenames stay metadata', () => {
  const cases: Array<[string, string]> = [
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system.ini', 'system.ini'],
    ['/abs/path/x.txt', 'x.txt'],
    ['..', 'upload'],
    ['evil\u202Etxt.exe', 'eviltxt.exe'],
    ['tab\there.txt', 'tabhere.txt'],
  ];
  it.each(cases)('%j is stored as %j and only <id>.bin is written', async (filename, expected) => {
    const { dir, files } = await setup();
    const body = multipartBody([filePart('data', filename)]);
    const record = await files.upload(bodyStream(body), multipartHeaders());
    expect(record.filename).toBe(expected);
    expect(await storedFiles(dir)).toEqual([`${record.id}.bin`]);
  });

  it('cuts a 1000-character filename to 255 characters', async () => {
    const { files } = await setup();
    const body = multipartBody([filePart('data', `${'é'.repeat(1000)}.txt`)]);
    expect((await files.upload(bodyStream(body), multipartHeaders())).filename).toBe('é'.repeat(255));
  });

  it('escapes a quote-bearing filename in the download header', async () => {
    const { files } = await setup();
    const body = multipartBody([{ headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''a%22%0D%0Ab.txt`], body: 'z' }]);
    const record = await files.upload(bodyStream(body), multipartHeaders());
    expect(record.filename).toBe('a"b.txt');
    expect(files.contentDisposition(record.filename)).toBe(`attachment; filename="a_b.txt"; filename*=UTF-8''a%22b.txt`);
  });
});

describe('FileStore.upload: rejected requests leave no file behind', () => {
  it('413 for a file one byte over maxFileBytes, never a truncated file', async () => {
    const { dir, store, files } = await setup({ maxFileBytes: 1024 });
    const body = multipartBody([filePart(binaryContent(1025))]);
    await expectHttpError(files.upload(bodyStream(body, 100), multipartHeaders()), 413, 'UPLOAD_FILE_TOO_LARGE');
    expect(await storedFiles(dir)).toEqual([]);
    expect(store.size('files')).toBe(0);
  });

  it('413 early for a much larger streamed file (no Content-Length)', async () => {
    const { dir, files } = await setup({ maxFileBytes: 64 * 1024 });
    const body = multipartBody([filePart(binaryContent(3 * 1024 * 1024))]);
    await expectHttpError(files.upload(bodyStream(body), multipartHeaders()), 413, 'UPLOAD_FILE_TOO_LARGE');
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('413 before reading when Content-Length exceeds what the limits allow', async () => {
    const { dir, files } = await setup({ maxFileBytes: 1024 });
    const body = multipartBody([filePart(binaryContent(2_000_000))]);
    const stream = bodyStream(body);
    await expectHttpError(files.upload(stream, multipartHeaders(body)), 413, 'UPLOAD_BODY_TOO_LARGE');
    expect(stream.readableFlowing).toBeNull(); // nothing was read
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('413 for a second file part (maxFiles 1)', async () => {
    const { dir, files } = await setup();
    const body = multipartBody([filePart('one', 'a.txt'), filePart('two', 'b.txt', 'text/plain', 'other')]);
    await expectHttpError(files.upload(bodyStream(body), multipartHeaders()), 413, 'UPLOAD_TOO_MANY_FILES');
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('413 for too many fields, too many parts, and an oversized field', async () => {
    const { dir, files } = await setup({ maxFields: 2, maxFieldBytes: 10 });
    const fields = multipartBody([fieldPart('a', '1'), fieldPart('b', '2'), fieldPart('c', '3'), filePart('x')]);
    await expectHttpError(files.upload(bodyStream(fields), multipartHeaders()), 413, 'UPLOAD_TOO_MANY_FIELDS');
    // Parts without Content-Disposition are skipped by busboy, but still counted as parts.
    const junk = multipartBody([filePart('x'), ...Array.from({ length: 5 }, () => ({ headers: ['X-Junk: 1'], body: 'j' }))]);
    await expectHttpError(files.upload(bodyStream(junk), multipartHeaders()), 413, 'UPLOAD_TOO_MANY_PARTS');
    const big = multipartBody([filePart('x'), fieldPart('description', '12345678901')]);
    await expectHttpError(files.upload(bodyStream(big), multipartHeaders()), 413, 'UPLOAD_FIELD_TOO_LARGE');
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('400 without a file part, for an empty file, and for duplicate parts', async () => {
    const { dir, store, files } = await setup({ maxFiles: 2 });
    const none = multipartBody([fieldPart('description', 'no file')]);
    await expectHttpError(files.upload(bodyStream(none), multipartHeaders()), 400, 'UPLOAD_MISSING_FILE');
    const asField = multipartBody([fieldPart('file', 'not a file part')]);
    await expectHttpError(files.upload(bodyStream(asField), multipartHeaders()), 400, 'UPLOAD_MISSING_FILE');
    const empty = multipartBody([filePart('')]);
    await expectHttpError(files.upload(bodyStream(empty), multipartHeaders()), 400, 'UPLOAD_EMPTY_FILE');
    const twice = multipartBody([filePart('a'), filePart('b')]);
    await expectHttpError(files.upload(bodyStream(twice), multipartHeaders()), 400, 'UPLOAD_DUPLICATE_PART');
    const desc = multipartBody([fieldPart('description', 'a'), fieldPart('description', 'b'), filePart('c')]);
    await expectHttpError(files.upload(bodyStream(desc), multipartHeaders()), 400, 'UPLOAD_DUPLICATE_PART');
    expect(await storedFiles(dir)).toEqual([]);
    expect(store.size('files')).toBe(0);
  });

  it('400 for a body cut before the closing delimiter, deleting the partial file', async () => {
    const { dir, files } = await setup();
    const body = multipartBody([filePart(binaryContent(100_000))], { close: false });
    await expectHttpError(files.upload(bodyStream(body), multipartHeaders()), 400, 'UPLOAD_MALFORMED');
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('400 UPLOAD_ABORTED when the request stream fails mid-file, deleting the partial file', async () => {
    const { dir, files } = await setup();
    const head = multipartBody([filePart(binaryContent(50_000))], { close: false }).subarray(0, 40_000);
    const stream = new Readable({ read() {} });
    stream.push(head);
    const upload = files.upload(stream, multipartHeaders());
    await until(async () => (await storedFiles(dir)).includes('1.part'), 'the part file 1.part');
    stream.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    await expectHttpError(upload, 400, 'UPLOAD_ABORTED');
    expect(await storedFiles(dir)).toEqual([]);
  });

  it('415 for a non-multipart or missing content type, 400 for a missing boundary', async () => {
    const { files } = await setup();
    const body = multipartBody([filePart('x')]);
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'multipart/mixed; boundary=x', 'text/plain']) {
      await expectHttpError(files.upload(bodyStream(body), { 'content-type': type }), 415, 'UPLOAD_UNSUPPORTED_MEDIA_TYPE');
    }
    await expectHttpError(files.upload(bodyStream(body), {}), 415);
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; charset=utf-8']) {
      await expectHttpError(files.upload(bodyStream(body), { 'content-type': type }), 400, 'UPLOAD_BAD_BOUNDARY');
    }
  });
});

describe('FileStore.open and get', () => {
  const hostile = [
    '../../etc/passwd',
    '1/../2',
    '%2e%2e',
    '..',
    '1e3',
    '-1',
    '0',
    '0x1',
    ' 1',
    '1 ',
    '1.0',
    '99999999999999999999',
    '9007199254740993',
    '',
    'abc',
  ];
  it.each(hostile)('answers 404 for the id %j', async (id) => {
    const { files } = await setup();
    const body = multipartBody([filePart('x')]);
    await files.upload(bodyStream(body), multipartHeaders());
    await expectHttpError(files.open(id), 404, 'FILE_NOT_FOUND');
    expect(() => files.get(id)).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('answers 404 for a well-formed id that was never stored', async () => {
    const { files } = await setup();
    await expectHttpError(files.open('42'), 404, 'FILE_NOT_FOUND');
    await expectHttpError(files.open(-5), 404);
  });

  it('gives download headers: octet-stream, attachment, nosniff (the pipeline sets the length of what it sends)', async () => {
    const { files } = await setup();
    const body = multipartBody([filePart('abc', 'naïve.txt')]);
    const opened = await files.open((await files.upload(bodyStream(body), multipartHeaders())).id);
    expect(opened.size).toBe(3);
    expect(downloadHeaders(opened)).toEqual({
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="na_ve.txt"; filename*=UTF-8''na%C3%AFve.txt`,
      'x-content-type-options': 'nosniff',
    });
  });
});

describe('FileStore.init and seedDemoFile', () => {
  it('removes *.part leftovers and *.bin files without a record, keeps committed ones', async () => {
    const { dir, files } = await setup();
    const body = multipartBody([filePart('keep me')]);
    const record = await files.upload(bodyStream(body), multipartHeaders());
    await mkdir(join(dir, 'files'), { recursive: true });
    await writeFile(join(dir, 'files', '7.part'), 'partial');
    await writeFile(join(dir, 'files', '8.bin'), 'orphan');
    expect(await files.init()).toBe(2);
    expect(await storedFiles(dir)).toEqual([`${record.id}.bin`]);
  });

  it('seeds welcome.txt as file 1 on an empty store, once', async () => {
    const { files } = await setup();
    const seeded = await files.seedDemoFile();
    expect(seeded).toMatchObject({ id: 1, filename: 'welcome.txt', contentType: 'text/plain' });
    expect(seeded!.size).toBeGreaterThan(0);
    const opened = await files.open('1');
    expect(await content(opened.file)).toContain('Welcome');
    expect(await files.seedDemoFile()).toBeUndefined();
  });
});

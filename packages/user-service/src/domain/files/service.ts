/**
 * Stored files (`docs/api.md` rule 21; POST /api/files/upload, GET
 * /api/files/<id>/download). Content lives in `${dir}/files/<id>.bin`, named only by the
 * server-generated id; metadata lives in the record store (collection `files`). Order of writes:
 * content to `<id>.part`, fsync, rename to `<id>.bin`, fsync the directory, commit the record.
 * So an acknowledged upload survives a crash, and a crash before the commit leaves only an
 * orphan that {@link FileStore.init} removes.
 *
 * Several instances (a shared store) share one directory (`FILES_DIR`): ids are unique across
 * them, so names never clash, and a download works from any instance. There `init` removes only
 * orphans older than {@link SHARED_ORPHAN_AGE_MS}: a younger one may be an upload another
 * instance is still receiving or about to commit.
 */
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { RecordStore, StoredRecord } from '../../storage/record-store.js';
import { contentDisposition, fileNotFound, parseFileId } from './metadata.js';
import { formatTimestamp } from '../users/model.js';
import { FileBody } from '@jaxrs-node/pipeline';
import { readMultipart, type MultipartBody, type MultipartLimits } from '@jaxrs-node/pipeline/multipart';
import { DEFAULT_UPLOAD_LIMITS, multipartLimits, receiveUpload, toUploadError, type UploadLimits } from './uploads.js';

/** Age after which a leftover in a directory shared by several instances is an orphan (1 hour). */
export const SHARED_ORPHAN_AGE_MS = 3_600_000;

/** Record-store collection of file metadata. */
export const FILES_COLLECTION = 'files';

/** What is known about a file's content (`docs/api.md` rule 21: filename, size > 0, contentType). */
export interface FileMetadata {
  /** Sanitised client filename: metadata only, never used as a path. */
  filename: string;
  size: number;
  contentType: string;
  description?: string;
}

/** The stored record of a file. */
export interface FileRecord extends StoredRecord, FileMetadata {
  id: number;
  /** ISO 8601 instant the upload was committed. */
  createdAt: string;
}

/** Options of {@link FileStore}; limits default to {@link DEFAULT_UPLOAD_LIMITS}. */
export interface FileStoreOptions extends Partial<UploadLimits> {
  /** Data directory; files go to `${dir}/files` unless `filesDir` says otherwise. */
  dir: string;
  /** Directory of the file contents (several instances share one); default `${dir}/files`. */
  filesDir?: string;
  store: RecordStore;
}

/**
 * A file found for download: its record and its content as the pipeline's `FileBody` (statted,
 * holding no descriptor), which answers `Range` requests (206, multipart/byteranges, 416) and
 * `If-Range`, and is opened only when the response is sent.
 */
export interface OpenedFile {
  record: FileRecord;
  file: FileBody;
  /** Size on disk, from the stat. */
  size: number;
}

const DEMO_CONTENT = 'Welcome to the user service.\nThis file was created by the demo seed.\n';

/**
 * Uploads and downloads of files.
 *
 * @example
 * ```ts
 * const files = new FileStore({ dir: './data', store });
 * await files.init();
 * const record = await files.receive(parts);                // 201 body (parts: the request's MultipartBody)
 * const { file, record } = await files.open(params.id);    // download: return file (a FileBody)
 * ```
 */
export class FileStore {
  readonly limits: Readonly<UploadLimits>;
  /** The multipart reader's limits for these upload limits (give them to `MultipartFeature`). */
  readonly multipartLimits: Readonly<Partial<MultipartLimits>>;
  private readonly dir: string;
  private readonly store: RecordStore;
  private ready: Promise<void> | undefined;

  constructor(options: FileStoreOptions) {
    const { dir, filesDir, store, ...limits } = options;
    this.limits = Object.freeze({ ...DEFAULT_UPLOAD_LIMITS, ...definedOnly(limits) });
    for (const [key, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`FileStore: ${key} must be a positive integer`);
      }
    }
    this.multipartLimits = Object.freeze(multipartLimits(this.limits));
    this.dir = filesDir ?? join(dir, 'files');
    this.store = store;
  }

  /**
   * Creates the directory and removes leftovers of a crash: `*.part` files and `*.bin` files
   * without a committed record. Call once at start-up, after `store.open()` and before serving.
   * @returns the number of files removed.
   */
  async init(): Promise<number> {
    await this.ensureDir();
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      const match = /^([0-9]{1,16})\.(part|bin)$/.exec(name);
      if (match === null) continue;
      if (match[2] === 'bin' && this.store.get(FILES_COLLECTION, Number(match[1])) !== undefined) continue;
      if (this.store.shared && !(await olderThan(join(this.dir, name), SHARED_ORPHAN_AGE_MS))) continue;
      await rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }

  /**
   * Receives a multipart/form-data upload (part `file`, optional field `description`) from its
   * parts, read in order as they arrive, and resolves with the committed record once content and
   * metadata are durable. Errors are HTTP errors (see `receiveUpload`).
   */
  async receive(parts: MultipartBody): Promise<FileRecord> {
    await this.ensureDir();
    const id = await this.store.allocateId(FILES_COLLECTION);
    const partPath = this.path(id, 'part');
    const received = await receiveUpload(parts, partPath, this.limits);
    return this.publish(id, partPath, received);
  }

  /**
   * {@link receive} from a raw request stream and its headers (a server without the pipeline's
   * reader). Checks the headers before reading anything: 415 for another media type, 400 for a
   * bad boundary, 413 for a Content-Length above what the limits allow; the stream is then
   * still unread, and so is what is left of it after a failure: close the connection.
   */
  async upload(stream: Readable, headers: IncomingHttpHeaders): Promise<FileRecord> {
    let parts: MultipartBody;
    try {
      parts = readMultipart(stream, headers, this.multipartLimits);
    } catch (error) {
      throw toUploadError(error, this.limits);
    }
    return this.receive(parts);
  }

  /** Metadata of file `rawId` (see {@link parseFileId}). @throws NotFoundError */
  get(rawId: string | number): FileRecord {
    const record = this.store.get<FileRecord>(FILES_COLLECTION, parseFileId(rawId));
    if (record === undefined) throw fileNotFound();
    // Records stored before timestamps were cut to seconds carry milliseconds: show them in seconds.
    if (record.createdAt.length !== 20) return { ...record, createdAt: formatTimestamp(new Date(record.createdAt)) };
    return record;
  }

  /**
   * Finds file `rawId` for download. The path is built from the parsed integer id only, so no
   * input can name a file outside `${dir}/files`. Statting before answering means a missing
   * content file fails here (ENOENT, a 500: the store is damaged), not after the headers went out;
   * the pipeline opens it when it sends the response and checks that it is still the same file.
   * @throws NotFoundError for an unknown or malformed id.
   */
  async open(rawId: string | number): Promise<OpenedFile> {
    const record = this.get(rawId);
    const file = await FileBody.fromPath(this.path(record.id, 'bin'));
    return { record, file, size: file.length };
  }

  /** See {@link contentDisposition}. */
  contentDisposition(filename: string): string {
    return contentDisposition(filename);
  }

  /**
   * Demo seed: when no file was ever stored, stores `welcome.txt` (text/plain). On a fresh store
   * the allocator hands out id 1. @returns the record, or undefined when files already exist.
   */
  async seedDemoFile(): Promise<FileRecord | undefined> {
    if (this.store.size(FILES_COLLECTION) > 0 || this.store.get(FILES_COLLECTION, 1) !== undefined) return undefined;
    await this.ensureDir();
    const id = await this.store.allocateId(FILES_COLLECTION);
    const partPath = this.path(id, 'part');
    const content = Buffer.from(DEMO_CONTENT, 'utf8');
    const handle = await open(partPath, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return this.publish(id, partPath, { filename: 'welcome.txt', contentType: 'text/plain', size: content.length });
  }

  /** Renames the fsynced part into place, makes the rename durable, then commits the record. */
  private async publish(id: number, partPath: string, meta: FileMetadata): Promise<FileRecord> {
    const binPath = this.path(id, 'bin');
    // Whole seconds, as every timestamp of the API (ISO 8601 UTC, `...T12:00:00Z`).
    const record: FileRecord = { id, ...meta, createdAt: formatTimestamp(new Date()) };
    try {
      await rename(partPath, binPath);
      await syncDirectory(this.dir);
      await this.store.commit([{ op: 'put', collection: FILES_COLLECTION, record }]);
    } catch (error) {
      await rm(partPath, { force: true });
      await rm(binPath, { force: true });
      throw error;
    }
    return this.store.get<FileRecord>(FILES_COLLECTION, id) ?? record;
  }

  private path(id: number, kind: 'part' | 'bin'): string {
    return join(this.dir, `${id}.${kind}`);
  }

  private ensureDir(): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(
      () => undefined,
      (error: unknown) => {
        this.ready = undefined; // let a later call retry
        throw error;
      },
    );
    return this.ready;
  }
}

/**
 * Response headers for a download (`docs/api.md` rule 21: `application/octet-stream`, `attachment`). `nosniff`
 * stops browsers from rendering uploaded HTML (OWASP File Upload Cheat Sheet). No `Content-Length`:
 * the pipeline sets it for the bytes it sends (the whole file, or the ranges asked for).
 */
export function downloadHeaders(file: Pick<OpenedFile, 'record'>): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'content-disposition': contentDisposition(file.record.filename),
    'x-content-type-options': 'nosniff',
  };
}

/** fsync of a directory makes a rename inside it durable (POSIX); not possible on Windows. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Whether the file was last modified more than `ms` ago (false when it is gone already). */
async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return false;
  }
}

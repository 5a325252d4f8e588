import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FormField } from '../../core/internal/form-fields.js';
import { EntityPart } from './entity-part.js';
import { limitExceeded, MultipartErrorCode } from './errors.js';
import type { MultipartBody } from './multipart-body.js';

/** A kept part up to this size stays in memory; a larger one goes to a temporary file. */
export const KEEP_IN_MEMORY_BYTES = 64 * 1024;

/**
 * The form a multipart request's `@FormParam`s are read from: a `URLSearchParams` of the text
 * values (so `@FormParam('n') n: number` converts as for a urlencoded form), plus the parts kept
 * whole for `@FormParam('file') file: EntityPart` parameters.
 *
 * @example
 * const form = ctx.getProperty('jaxrs-node.form') as MultipartForm;  // in a filter after the read
 * form.get('title'); form.part('file')?.safeFilename;
 */
export class MultipartForm extends URLSearchParams {
  private readonly kept = new Map<string, EntityPart[]>();

  /** The first kept part named `name`. */
  part(name: string): EntityPart | undefined {
    return this.kept.get(name)?.[0];
  }

  /** Every kept part named `name`, in order. */
  parts(name: string): EntityPart[] {
    return [...(this.kept.get(name) ?? [])];
  }

  /** Adds a kept part (the reader does). */
  addPart(part: EntityPart): void {
    const list = this.kept.get(part.name);
    if (list === undefined) this.kept.set(part.name, [part]);
    else list.push(part);
  }
}

/** The temporary directory of one request's kept parts, made on first use, removed by {@link dispose}. */
export class Spool {
  private dir: Promise<string> | undefined;
  private count = 0;

  /** A new file path in the request's directory. */
  async file(): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), 'jaxrs-multipart-'));
    return join(await this.dir, `part-${this.count++}`);
  }

  /** Removes the directory and what is in it. */
  dispose(): void {
    const dir = this.dir;
    this.dir = undefined;
    if (dir !== undefined) void dir.then((d) => rm(d, { recursive: true, force: true })).catch(() => undefined);
  }
}

interface Wanted {
  text: boolean;
  part: boolean;
}

/**
 * Reads a whole multipart body for a method's `@FormParam`s (`fields`, from the route; every text
 * field when `undefined`): a part a converted parameter names becomes a text value (a file part
 * read as text is bounded by `fieldSize`); a part an `EntityPart` parameter names is kept (in
 * memory up to {@link KEEP_IN_MEMORY_BYTES}, else in a file of `spool`, bounded by `partSize`);
 * the others are drained.
 */
export async function readForm(body: MultipartBody, fields: readonly FormField[] | undefined, spool: Spool): Promise<MultipartForm> {
  const wanted = new Map<string, Wanted>();
  for (const f of fields ?? []) {
    const w = wanted.get(f.name) ?? { text: false, part: false };
    if (f.part) w.part = true;
    else w.text = true;
    wanted.set(f.name, w);
  }
  const form = new MultipartForm();
  for await (const part of body) {
    const want = fields === undefined ? (part.isFile ? undefined : { text: true, part: false }) : wanted.get(part.name);
    if (want === undefined) continue; // drained by the next step
    if (want.part) {
      const kept = await keep(part, spool);
      form.addPart(kept);
      if (want.text) form.append(part.name, await boundedText(kept, body.limits.fieldSize));
    } else {
      form.append(part.name, part.isFile ? await boundedText(part, body.limits.fieldSize) : await part.text());
    }
  }
  return form;
}

/** A part's text, refusing more than `limit` bytes (413) for a file part named by a text parameter. */
async function boundedText(part: EntityPart, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.content) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      part.content.destroy();
      throw limitExceeded(MultipartErrorCode.FieldTooLarge, `Part '${part.name}' read as text exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  return copyOf(part, () => Readable.from([bytes])).text();
}

/** The part read to its end, in memory or in a file of `spool`, as a part that can be read later. */
async function keep(part: EntityPart, spool: Spool): Promise<EntityPart> {
  const chunks: Buffer[] = [];
  let size = 0;
  let path: string | undefined;
  let handle: FileHandle | undefined;
  try {
    for await (const chunk of part.content) {
      const buf = chunk as Buffer;
      if (handle === undefined) {
        chunks.push(buf);
        size += buf.length;
        if (size <= KEEP_IN_MEMORY_BYTES) continue;
        path = await spool.file();
        handle = await open(path, 'wx', 0o600);
        for (const c of chunks.splice(0)) await writeAll(handle, c);
      } else {
        await writeAll(handle, buf);
      }
    }
  } finally {
    await handle?.close();
  }
  if (path !== undefined) {
    const file = path;
    return copyOf(part, () => createReadStream(file));
  }
  const bytes = Buffer.concat(chunks);
  return copyOf(part, () => Readable.from(bytes.length === 0 ? [] : [bytes]));
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.length;) at += (await handle.write(chunk, at)).bytesWritten;
}

function copyOf(part: EntityPart, open: () => Readable): EntityPart {
  const { name, filename, mediaType, headers, isFile } = part;
  return new EntityPart({ name, filename, mediaType, headers, isFile, open });
}

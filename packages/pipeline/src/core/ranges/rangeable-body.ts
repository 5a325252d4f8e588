/**
 * The body the writer of rangeable entities gives: a stream of the whole content that opens the
 * entity only when something reads it. The response step (core/stages/send-ranges.ts) never reads
 * it: finding it still the body at the end means no writer interceptor replaced it (a content
 * coding did not apply), so ranges can be served from the entity itself. An interceptor that does
 * replace it (gzip) reads the whole content through it.
 */
import { Readable } from 'node:stream';
import type { ByteReader, RangeableEntity } from './rangeable-entity.js';

export class RangeableBody extends Readable {
  private reader: ByteReader | undefined;
  private source: Readable | undefined;
  private opening: boolean;

  constructor(readonly entity: RangeableEntity) {
    super();
    this.reader = undefined;
    this.source = undefined;
    this.opening = false;
  }

  override _read(): void {
    if (this.source !== undefined) {
      this.source.resume();
      return;
    }
    if (this.opening) return;
    this.opening = true;
    Promise.resolve()
      .then(() => this.entity.open())
      .then(
        (reader) => this.start(reader),
        (e: unknown) => this.destroy(e as Error),
      );
  }

  private start(reader: ByteReader): void {
    if (this.destroyed) {
      reader.close();
      return;
    }
    this.reader = reader;
    const length = this.entity.length;
    const whole = length === 0 ? new Uint8Array(0) : reader.slice(0, length);
    if (whole instanceof Uint8Array) {
      if (whole.byteLength > 0) this.push(whole);
      this.push(null);
      return;
    }
    this.source = whole;
    whole.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) whole.pause();
    });
    whole.once('end', () => this.push(null));
    whole.once('error', (e) => this.destroy(e));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.source?.destroy();
    this.reader?.close();
    callback(error);
  }
}

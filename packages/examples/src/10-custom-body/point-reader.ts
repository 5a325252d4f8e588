import type { Readable } from 'node:stream';
import { BadRequestError, readBody, type MediaType, type MessageBodyReader, type ReadContext, type TypeToken } from '@jaxrs-node/pipeline';

/** The custom media type this reader understands. */
export const POINT_MEDIA_TYPE = 'application/vnd.example.point+text';

/** A point in the plane. */
export class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const NUMBER = String.raw`-?\d{1,15}(?:\.\d{1,15})?`;
const POINT = new RegExp(String.raw`^\s*(${NUMBER})\s*,\s*(${NUMBER})\s*$`);

/** A point never needs more bytes than this; more is a 413 before any parsing. */
const MAX_POINT_BYTES = 128;

/**
 * Reads `application/vnd.example.point+text` bodies like `3,4` into a {@link Point}, for entity
 * parameters typed `Point`. Malformed input is a 400 with a stable code.
 */
export class PointReader implements MessageBodyReader<Point> {
  readonly consumes: readonly string[] = [POINT_MEDIA_TYPE];

  isReadable(type: TypeToken, mediaType: MediaType | undefined): boolean {
    return type === Point && mediaType?.essence === POINT_MEDIA_TYPE;
  }

  async readFrom(_type: TypeToken, _mediaType: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<Point> {
    // readBody enforces the limit and Content-Length, and handles client aborts: never read
    // `input` by hand without a limit.
    const bytes = await readBody(input, Math.min(ctx.limit, MAX_POINT_BYTES), ctx.contentLength);
    const match = POINT.exec(bytes.toString('utf8'));
    if (match === null) throw new BadRequestError('expected a point like "3,4"', { code: 'EXAMPLE_BAD_POINT' });
    return new Point(Number(match[1]), Number(match[2]));
  }
}

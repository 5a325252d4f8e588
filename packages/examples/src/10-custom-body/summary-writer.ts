import type { Body, MediaType, MessageBodyWriter, TypeToken } from '@jaxrs-node/pipeline';

/**
 * A catch-all writer: it declares `*\/*` and writes any entity as one line of text (`key=value`
 * pairs). It is registered BEFORE CsvWriter, yet for `text/csv` CsvWriter still wins: writers are
 * chosen by how closely their declared media types match (`text/csv` before `text/*` before
 * `*\/*`, Jakarta REST 3.1 §4.2.2), registration order only breaks the remaining ties. For a type
 * no other writer declares (`text/x-summary`), it is the one that writes.
 */
export class SummaryWriter implements MessageBodyWriter<readonly object[]> {
  readonly produces: readonly string[] = ['*/*'];

  /** Lists, in any text type. */
  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === Array && mediaType.type === 'text';
  }

  writeTo(entity: readonly object[]): Body {
    const rows = entity as readonly object[];
    return `${rows
      .map((r) =>
        Object.entries(r)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(' '),
      )
      .join('; ')}\n`;
  }
}

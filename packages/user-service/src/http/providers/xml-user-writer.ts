import type { MediaType, MessageBodyWriter, TypeToken } from '@jaxrs-node/pipeline';
import { userToXml, type XmlUser } from '../../domain/users/xml.js';

/** A user to be written as XML (`docs/api.md` rule 20: root `user`, children id, email, firstName, lastName...). */
export class XmlUserView {
  constructor(readonly user: XmlUser) {}
}

/**
 * MessageBodyWriter for {@link XmlUserView} as `application/xml` / `text/xml`: fast-xml-parser's
 * builder over whitelisted element names only, every value escaped (see domain/users/xml.ts).
 */
export class XmlUserWriter implements MessageBodyWriter<XmlUserView> {
  readonly name = 'XmlUserWriter';
  readonly produces = ['application/xml', 'text/xml'] as const;

  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === XmlUserView && (mediaType.essence === 'application/xml' || mediaType.essence === 'text/xml');
  }

  writeTo(entity: XmlUserView): string {
    return userToXml(entity.user);
  }
}

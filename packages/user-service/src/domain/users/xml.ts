/**
 * XML view of a user for `GET /api/xml/users/{id}` (`docs/api.md` rule 20).
 *
 * fast-xml-parser's XMLBuilder escapes text but does NOT validate tag names, passes control
 * characters and lone surrogates through, prints a top-level array as `<0>` and a Date via
 * `toString()` (fast-xml-parser XMLBuilder documentation). So this module builds the object itself: fixed element
 * names in a fixed order, every value converted to a clean string first.
 */
import { XMLBuilder } from 'fast-xml-parser';

/** The fields the XML view may show. Structural, so any user record with these fields fits. */
export interface XmlUser {
  readonly id: number | bigint | string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly age?: number | null;
  readonly fullName?: string | null;
  readonly status?: string | null;
  readonly createdAt?: string | Date | null;
  readonly updatedAt?: string | Date | null;
  readonly birthDate?: string | Date | null;
  readonly roles?: readonly string[] | null;
}

/** XML declaration prepended to every document. */
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/**
 * Code units that XML 1.0 §2.2 `Char` excludes: C0 controls except TAB/LF/CR, U+FFFE, U+FFFF,
 * and surrogates not part of a pair. (Astral characters, written as pairs, are fine.)
 */
const INVALID_XML_CHARS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const INVALID_XML_CHAR = new RegExp(INVALID_XML_CHARS.source);

/**
 * True when `value` can appear in an XML 1.0 document. Meant for input validation, so bad
 * characters are refused with a 400 at the door rather than silently altered on output.
 * @example assertXmlSafe('Ada\u0000') // false
 */
export function assertXmlSafe(value: string): boolean {
  return !INVALID_XML_CHAR.test(value);
}

/** Replaces every character XML 1.0 cannot carry with U+FFFD. */
export function sanitizeXmlText(value: string): string {
  return value.replace(INVALID_XML_CHARS, '\ufffd');
}

/**
 * One builder for the process: options are fixed. `ignoreAttributes: true` means no key can turn
 * into an attribute; `processEntities: true` escapes `& < > " '` in every text node; comment
 * and CDATA property names stay unset so no key can emit `<!--` or `<![CDATA[`.
 */
const builder = new XMLBuilder({
  ignoreAttributes: true,
  processEntities: true,
  suppressEmptyNode: false,
  format: false,
});

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return sanitizeXmlText(value);
  return undefined; // objects and functions are never serialised
}

/** Element names in document order; also the whitelist. */
const FIELDS = ['id', 'email', 'firstName', 'lastName', 'age', 'fullName', 'status', 'createdAt', 'updatedAt', 'birthDate'] as const;

/**
 * Serialises `user` as `<?xml ...?><user><id>..</id>...<roles><role>USER</role></roles></user>`.
 * Absent optional fields are omitted; `roles` defaults to `['USER']` (`docs/api.md` rule 9: an ordinary user carries
 * the role `USER`).
 * @example userToXml({ id: 1, email: 'a@b.c', firstName: 'Ada', lastName: 'Lovelace' })
 */
export function userToXml(user: XmlUser): string {
  const element: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = text(user[field]);
    if (value !== undefined) element[field] = value;
  }
  const roles = (Array.isArray(user.roles) && user.roles.length > 0 ? user.roles : ['USER'])
    .map(text)
    .filter((role): role is string => role !== undefined);
  // Wrapped: a bare array would become one <role> per item directly under <user>, or <0> at top level.
  element['roles'] = { role: roles };
  return XML_DECLARATION + builder.build({ user: element });
}

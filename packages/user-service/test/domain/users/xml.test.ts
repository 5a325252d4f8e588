import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { assertXmlSafe, sanitizeXmlText, userToXml, XML_DECLARATION, type XmlUser } from '../../../src/domain/users/xml.js';

/** Parses without any value coercion so every value comes back as the exact text sent. */
const parser = new XMLParser({ parseTagValue: false, processEntities: true, htmlEntities: false, isArray: (name) => name === 'role' });

function parse(xml: string): Record<string, unknown> {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as Record<string, unknown>;
}

const base: XmlUser = { id: 1, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' };

describe('userToXml', () => {
  it('writes the declaration, root <user>, required children and default roles', () => {
    const xml = userToXml(base);
    expect(xml.startsWith(`${XML_DECLARATION}<user>`)).toBe(true);
    expect(XML_DECLARATION).toBe('<?xml version="1.0" encoding="UTF-8"?>');
    expect(xml).toBe(
      `${XML_DECLARATION}<user><id>1</id><email>ada@example.com</email><firstName>Ada</firstName>` +
        '<lastName>Lovelace</lastName><roles><role>USER</role></roles></user>',
    );
  });

  it('writes optional fields in a fixed order, dates as ISO 8601', () => {
    const created = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    const xml = userToXml({
      ...base,
      age: 36,
      fullName: 'Ada Lovelace',
      status: 'ACTIVE',
      createdAt: created,
      updatedAt: '2024-01-03T00:00:00Z',
      birthDate: '1815-12-10',
      roles: ['USER', 'ADMIN'],
    });
    const user = parse(xml)['user'] as Record<string, unknown>;
    expect(Object.keys(user)).toEqual([
      'id',
      'email',
      'firstName',
      'lastName',
      'age',
      'fullName',
      'status',
      'createdAt',
      'updatedAt',
      'birthDate',
      'roles',
    ]);
    expect(user['createdAt']).toBe('2024-01-02T03:04:05.000Z');
    expect(user['age']).toBe('36');
    expect(user['roles']).toEqual({ role: ['USER', 'ADMIN'] });
  });

  it('omits null, undefined, non-finite and invalid-date values, and ignores unknown fields', () => {
    const sneaky = {
      ...base,
      age: Number.NaN,
      status: null,
      createdAt: new Date('nope'),
      updatedAt: undefined,
      password: 'secret',
      '"><evil/><x': 'boom',
      __proto__: { admin: true },
    } as unknown as XmlUser;
    const xml = userToXml(sneaky);
    expect(xml).not.toMatch(/age|status|createdAt|updatedAt|password|secret|evil|admin/);
    expect(Object.keys(parse(xml)['user'] as object)).toEqual(['id', 'email', 'firstName', 'lastName', 'roles']);
  });

  it.each([
    ['closing tag injection', '</email><admin>true</admin><email>'],
    ['CDATA terminator', 'a]]>b'],
    ['CDATA opener', '<![CDATA[x]]>'],
    ['comment', '<!-- hi -->'],
    ['processing instruction', '<?xml-stylesheet href="x"?>'],
    ['entity declaration', '<!DOCTYPE x [<!ENTITY e "boom">]>&e;'],
    ['quotes and ampersands', `"double" 'single' &amp; & &#x41;`],
    ['astral characters', 'emoji 😀 and 𝔘'],
    ['tab and line feed', 'a\tb\nc'],
  ])('keeps %s as text and round-trips it', (_, payload) => {
    const xml = userToXml({ ...base, email: payload, firstName: payload, lastName: payload, status: payload, roles: [payload] });
    const user = parse(xml)['user'] as Record<string, unknown>;
    expect(user['email']).toBe(payload);
    expect(user['firstName']).toBe(payload);
    expect(user['status']).toBe(payload);
    expect(user['roles']).toEqual({ role: [payload] });
    expect(Object.keys(user)).toEqual(['id', 'email', 'firstName', 'lastName', 'status', 'roles']);
    expect(xml.match(/</g)?.length).toBe(
      userToXml({ ...base, email: 'x', firstName: 'x', lastName: 'x', status: 'x', roles: ['x'] }).match(/</g)?.length,
    );
  });

  it('replaces control characters and lone surrogates defensively so output stays well-formed', () => {
    const dirty = 'a\u0000b\u0007c\u001fd\ufffee\uffff f\ud800g\udc00h';
    const xml = userToXml({ ...base, firstName: dirty });
    expect(Buffer.from(xml, 'utf8').toString('utf8')).toBe(xml); // no lone surrogate left to mangle
    expect((parse(xml)['user'] as Record<string, unknown>)['firstName']).toBe('a\ufffdb\ufffdc\ufffdd\ufffde\ufffd f\ufffdg\ufffdh');
  });
});

describe('assertXmlSafe', () => {
  it.each([
    ['plain', 'Ada Lovelace', true],
    ['tab, LF, CR', 'a\tb\nc\rd', true],
    ['astral pair', '😀', true],
    ['C1 control (allowed by XML 1.0)', 'a\u0085b', true],
    ['NUL', 'a\u0000', false],
    ['BEL', '\u0007', false],
    ['vertical tab', '\u000b', false],
    ['unit separator', '\u001f', false],
    ['U+FFFE', '\ufffe', false],
    ['U+FFFF', '\uffff', false],
    ['lone high surrogate at end', 'a\ud83d', false],
    ['lone high surrogate before text', '\ud83dx', false],
    ['lone low surrogate', '\ude00', false],
    ['reversed pair', '\ude00\ud83d', false],
  ])('%s -> %s', (_, value, safe) => {
    expect(assertXmlSafe(value)).toBe(safe);
    expect(sanitizeXmlText(value) === value).toBe(safe);
  });
});

/** XmlUserWriter in isolation: which (type, media type) pairs it takes, and that its output is well-formed. */
import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseMediaType, type MediaType } from '@jaxrs-node/pipeline';
import { runWriterInterceptors } from '@jaxrs-node/pipeline/testing';
import { XmlUserView, XmlUserWriter } from '../../src/http/providers/xml-user-writer.js';

const writer = new XmlUserWriter();
const mt = (s: string): MediaType => parseMediaType(s)!;
const user = { id: 7, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: 36, status: 'ACTIVE', roles: ['USER', 'ADMIN'] };

describe('XmlUserWriter.isWriteable', () => {
  it.each([
    [XmlUserView, 'application/xml', true],
    [XmlUserView, 'text/xml', true],
    [XmlUserView, 'application/xml; charset=UTF-8', true],
    [XmlUserView, 'TEXT/XML', true],
    [XmlUserView, 'application/json', false],
    [XmlUserView, 'application/atom+xml', false],
    [XmlUserView, 'text/plain', false],
    [Object, 'application/xml', false],
    [String, 'text/xml', false],
    [class Other {}, 'application/xml', false],
  ] as const)('%o as %s -> %s', (type, media, expected) => {
    expect(writer.isWriteable(type, mt(media))).toBe(expected);
  });

  it('declares the two XML media types it produces', () => {
    expect([...writer.produces]).toEqual(['application/xml', 'text/xml']);
  });
});

describe('XmlUserWriter.writeTo', () => {
  const parse = (xml: string) => new XMLParser({ parseTagValue: false }).parse(xml) as { user: Record<string, unknown> };

  it('writes a well-formed document rooted at <user> with whitelisted elements', async () => {
    const { body, response } = await runWriterInterceptors([], { entity: new XmlUserView(user), mediaType: 'application/xml', writers: [writer] });
    const xml = body.toString('utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><user>')).toBe(true);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(parse(xml).user).toMatchObject({ id: '7', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', age: '36', roles: { role: ['USER', 'ADMIN'] } });
    expect(response.headers['content-type']).toBe('application/xml');
  });

  it('stays well-formed for hostile values: markup, entities, control characters, lone surrogates', async () => {
    const hostile = {
      ...user,
      email: '"><evil/>&amp;\'@x.y',
      firstName: 'a]]><!--b\u0000\u0001c',
      lastName: 'x\ud800y<![CDATA[z]]>',
      roles: ['<role>ADMIN</role>'],
      extra: '<injected/>',
    } as unknown as ConstructorParameters<typeof XmlUserView>[0];
    const xml = String(writer.writeTo(new XmlUserView(hostile)));
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toContain('<evil');
    expect(xml).not.toContain('<injected');
    expect(xml).not.toContain('<!--');
    const parsed = parse(xml).user;
    expect(parsed['email']).toBe('"><evil/>&amp;\'@x.y');
    expect(parsed['extra']).toBeUndefined();
    expect(parsed['firstName']).toBe('a]]><!--b\ufffd\ufffdc');
  });

  it('writes ISO dates and defaults roles to USER', () => {
    const xml = String(writer.writeTo(new XmlUserView({ id: 1, email: 'a@b.c', firstName: 'A', lastName: 'B', createdAt: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) })));
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<createdAt>2024-01-02T03:04:05.000Z</createdAt>');
    expect(xml).toContain('<roles><role>USER</role></roles>');
  });
});

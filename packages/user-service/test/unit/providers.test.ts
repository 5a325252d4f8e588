/** The service's entity providers in isolation: CustomFieldInterceptor and XmlUserWriter. */
import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseMediaType, Response, type MediaType } from '@jaxrs-node/pipeline';
import { runWriterInterceptors } from '@jaxrs-node/pipeline/testing';
import { CustomFieldInterceptor } from '../../src/http/providers/custom-field-interceptor.js';
import { XmlUserView, XmlUserWriter } from '../../src/http/providers/xml-user-writer.js';

// CustomFieldInterceptor in isolation: enriches successful object entities only, before the writer runs.
const interceptor = new CustomFieldInterceptor();
const json = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

describe('CustomFieldInterceptor', () => {
  it('adds customField to an object entity, which the JSON writer then serialises', async () => {
    const entity = { id: 1, name: 'data' };
    const { body, response } = await runWriterInterceptors([interceptor], { entity });
    expect(json(body)).toEqual({ id: 1, name: 'data', customField: 'custom-value' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(entity).toEqual({ id: 1, name: 'data' }); // a copy: the resource's object is untouched
  });

  it('works on an instance of a class (the entity type becomes a plain object)', async () => {
    class Data {
      constructor(readonly value = 3) {}
    }
    const { body } = await runWriterInterceptors([interceptor], { entity: new Data() });
    expect(json(body)).toEqual({ value: 3, customField: 'custom-value' });
  });

  it.each([400, 404, 429, 500])('leaves an error response (%i) alone', async (status) => {
    const entity = { status, error: 'x' };
    const { body } = await runWriterInterceptors([interceptor], { entity, response: new Response(status, entity) });
    expect(json(body)).toEqual(entity);
  });

  it('leaves arrays and primitives alone', async () => {
    expect(json((await runWriterInterceptors([interceptor], { entity: [{ id: 1 }, { id: 2 }] })).body)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(json((await runWriterInterceptors([interceptor], { entity: 'plain', type: String })).body)).toBe('plain');
    expect(json((await runWriterInterceptors([interceptor], { entity: 42, type: Number })).body)).toBe(42);
  });

  it('always proceeds, so interceptors after it still run', async () => {
    const seen: unknown[] = [];
    const spy = {
      name: 'spy',
      aroundWriteTo: async (ctx: { entity: unknown; proceed(): Promise<void> }) => {
        seen.push(ctx.entity);
        await ctx.proceed();
      },
    };
    await runWriterInterceptors([interceptor, spy], { entity: { a: 1 } });
    await runWriterInterceptors([interceptor, spy], { entity: { a: 1 }, response: new Response(404) });
    expect(seen).toEqual([{ a: 1, customField: 'custom-value' }, { a: 1 }]);
  });
});

// XmlUserWriter in isolation: which (type, media type) pairs it takes, and that its output is well-formed.
const writer = new XmlUserWriter();
const mt = (s: string): MediaType => parseMediaType(s)!;
const user = {
  id: 7,
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  age: 36,
  status: 'ACTIVE',
  roles: ['USER', 'ADMIN'],
};

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
    const { body, response } = await runWriterInterceptors([], {
      entity: new XmlUserView(user),
      mediaType: 'application/xml',
      writers: [writer],
    });
    const xml = body.toString('utf8');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><user>')).toBe(true);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(parse(xml).user).toMatchObject({
      id: '7',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      age: '36',
      roles: { role: ['USER', 'ADMIN'] },
    });
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
    const xml = String(
      writer.writeTo(
        new XmlUserView({ id: 1, email: 'a@b.c', firstName: 'A', lastName: 'B', createdAt: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) }),
      ),
    );
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<createdAt>2024-01-02T03:04:05.000Z</createdAt>');
    expect(xml).toContain('<roles><role>USER</role></roles>');
  });
});

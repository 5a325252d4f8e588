/** Link (RFC 8288): formatting, parsing, and `ResponseBuilder.links` over both transports. */
import { describe, expect, it } from 'vitest';
import { Application, GET, Link, Path, Response } from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

describe('Link', () => {
  it('formats with quoted parameters', () => {
    expect(Link.of('/a?page=2', 'next').toString()).toBe('</a?page=2>; rel="next"');
    expect(new Link('https://x.example/b', { rel: 'alternate', type: 'text/html', title: 'a "b"' }).toString()).toBe(
      '<https://x.example/b>; rel="alternate"; type="text/html"; title="a \\"b\\""',
    );
  });

  it('parses a header of several links, quoted or not, skipping members without rel', () => {
    const links = Link.parse('</a>; rel="next", </b>;rel=prev; title="x, y", </c>; type="t"');
    expect(links.map((l) => [l.uri, l.rel, l.params.title])).toEqual([
      ['/a', 'next', undefined],
      ['/b', 'prev', 'x, y'],
    ]);
  });

  it('refuses targets with angle brackets or spaces, and empty relations', () => {
    expect(() => Link.of('/a b', 'next')).toThrow(TypeError);
    expect(() => Link.of('/a>', 'next')).toThrow(TypeError);
    expect(() => Link.of('/a', '')).toThrow(TypeError);
  });
});

@Path('/paged')
class Paged {
  @GET() get(): Response {
    return Response.ok({ page: 1 }).links(Link.of('/paged?page=0', 'first'), Link.of('/paged?page=2', 'next')).build();
  }
}

describe.each(TRANSPORTS)('ResponseBuilder.links (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Paged] }));
  it('sends one Link value per link', async () => {
    const r = await send('/paged');
    const header = ([] as string[]).concat(r.headers.link as string | string[]).join(', ');
    expect(Link.parse(header).map((l) => `${l.rel} ${l.uri}`)).toEqual(['first /paged?page=0', 'next /paged?page=2']);
  });
});

describe('Link.fromUri (builder)', () => {
  it('builds rel, type, title and other parameters, and formats them quoted', () => {
    const link = Link.fromUri('/api/users?page=2').rel('next').type('application/json').title('Page "2"').param('hreflang', 'en').build();
    expect(link.toString()).toBe('</api/users?page=2>; rel="next"; type="application/json"; title="Page \\"2\\""; hreflang="en"');
    expect(Link.parse(link.toString())[0]!.params).toEqual({ rel: 'next', type: 'application/json', title: 'Page "2"', hreflang: 'en' });
  });

  it('takes anything that prints as a URI, joins several relations, and needs one', () => {
    expect(Link.fromUri(new URL('http://h/x')).rel('first').rel('prev').build().toString()).toBe('<http://h/x>; rel="first prev"');
    expect(() => Link.fromUri('/x').build()).toThrow(/needs a relation/);
    expect(() => Link.fromUri('/x').param('bad name', 'v')).toThrow(/Invalid link parameter name/);
  });
});

/**
 * UriBuilder (Jakarta REST 3.1 §5.3.2): components, `@Path`-syntax templates, RFC 3986 encoding
 * per component, errors, and paths read from resource classes (inherited methods included).
 */
import { describe, expect, it } from 'vitest';
import { GET, Path, POST, UriBuilder } from '../../src/index.js';

@Path('users')
class Users {
  @GET() list(): void {}
  @GET('{id: [0-9]+}') get(): void {}
  @Path('{id}/orders/{orderId}') @GET() order(): void {}
}

abstract class FilesBase {
  @GET('/{name}/meta') meta(): void {}
}

@Path('/files/')
class Files extends FilesBase {
  @POST() upload(): void {}
}

class Undecorated {
  run(): void {}
}

describe('UriBuilder: components', () => {
  it('parses absolute and relative URIs and rebuilds them unchanged', () => {
    for (const uri of [
      'https://user:pw@api.example.com:8443/a/b%20c?x=1&y=a+b&flag#frag',
      'http://[::1]:3000/x',
      'users/7?q=1',
      '/a/b/',
      '?only=query',
      '#top',
      'mailto:someone@example.com',
    ]) {
      expect(UriBuilder.fromUri(uri).build()).toBe(uri);
    }
    expect(UriBuilder.fromUri(new URL('http://h.example/p?q=1')).build()).toBe('http://h.example/p?q=1');
  });

  it('sets scheme, host, port, fragment; undefined removes them', () => {
    const b = UriBuilder.fromPath('/x').scheme('HTTPS').host('example.com').port(8443).fragment('f g');
    expect(b.build()).toBe('https://example.com:8443/x#f%20g');
    expect(b.port(undefined).fragment(undefined).build()).toBe('https://example.com/x');
    expect(b.scheme(undefined).host(undefined).build()).toBe('/x');
    expect(new UriBuilder().host('h.example').path('a').build()).toBe('//h.example/a');
  });

  it('path() joins with exactly one slash; segment() encodes each value as one segment', () => {
    expect(UriBuilder.fromUri('http://h/api/').path('/users').build()).toBe('http://h/api/users');
    expect(UriBuilder.fromUri('http://h/api').path('users').path('7/').path('/x').build()).toBe('http://h/api/users/7/x');
    expect(UriBuilder.fromUri('http://h').path('users').build()).toBe('http://h/users');
    expect(UriBuilder.fromPath('/files').segment('a/b', 'c d', '50%', '{x}').build()).toBe('/files/a%2Fb/c%20d/50%25/%7Bx%7D');
    expect(UriBuilder.fromPath('/files/').segment('z').build()).toBe('/files/z');
    expect(UriBuilder.fromPath('a').replacePath('/b').build()).toBe('/b');
  });

  it('literal text is encoded for its component, valid %XX escapes kept', () => {
    expect(UriBuilder.fromPath('/a b/ü/%41/%zz').build()).toBe('/a%20b/%C3%BC/%41/%25zz');
    expect(UriBuilder.fromUri('http://h/x?q=a b').build()).toBe('http://h/x?q=a%20b');
  });

  it('queryParam encodes & = + # and spaces; repeats; replaceQueryParam replaces or removes', () => {
    const b = UriBuilder.fromPath('/s').queryParam('q', 'a&b=c+d#e f').queryParam('tag', 'x', 'y');
    expect(b.build()).toBe('/s?q=a%26b%3Dc%2Bd%23e%20f&tag=x&tag=y');
    expect(b.clone().replaceQueryParam('tag', 'z').build()).toBe('/s?q=a%26b%3Dc%2Bd%23e%20f&tag=z');
    expect(b.replaceQueryParam('q').build()).toBe('/s?tag=x&tag=y');
    expect(UriBuilder.fromUri('/s?a=1&b=2').replaceQueryParam('a', 3).build()).toBe('/s?b=2&a=3');
    expect(UriBuilder.fromUri('/s?a=1').replaceQuery('x=y').build()).toBe('/s?x=y');
    expect(() => UriBuilder.fromPath('/s').queryParam('q')).toThrow(/queryParam\('q'\): no value/);
  });

  it('clone() copies; toString() is the template', () => {
    const a = UriBuilder.fromPath('/a/{id}');
    const b = a.clone().path('b');
    expect([a.toString(), b.toString(), String(b)]).toEqual(['/a/{id}', '/a/{id}/b', '/a/{id}/b']);
    expect(UriBuilder.fromPath('/a').segment(new URL('http://x/y')).build()).toBe('/a/http:%2F%2Fx%2Fy');
    expect(() => UriBuilder.fromPath('/a').segment(null)).toThrow(/a segment is null/);
    expect(() => UriBuilder.fromPath('/a').queryParam('q', 'x', undefined)).toThrow(/queryParam\('q'\): a value is undefined/);
  });

  it('refuses a bad scheme, port or host', () => {
    expect(() => new UriBuilder().scheme('1http')).toThrow(TypeError);
    expect(() => new UriBuilder().port(70000)).toThrow(/port/);
    expect(() => new UriBuilder().port(1.5)).toThrow(TypeError);
    expect(() => new UriBuilder().host('')).toThrow(TypeError);
    expect(() => new UriBuilder().host('[zz')).toThrow(TypeError);
    expect(() => UriBuilder.fromUri('http://h:port/')).toThrow(/bad port/);
  });
});

describe('UriBuilder: templates', () => {
  it('build() binds values in order of first appearance, each encoded for its component', () => {
    const b = UriBuilder.fromTemplate('http://{host}/users/{id}/{id}/files/{name}?q={q}&{id}=1#{frag}');
    expect(b.build('ex.example', 'a/b', 'c d.txt', 'x&y+z', 'p q/r?')).toBe(
      'http://ex.example/users/a%2Fb/a%2Fb/files/c%20d.txt?q=x%26y%2Bz&a/b=1#p%20q/r?',
    );
  });

  it('values are encoded whole: % is %25 and templates in values stay text', () => {
    expect(UriBuilder.fromTemplate('/a/{x}').build('%41{y}')).toBe('/a/%2541%7By%7D');
    expect(UriBuilder.fromPath('/q').queryParam('v', '{v}').build('1 %')).toBe('/q?v=1%20%25');
  });

  it('buildFromMap binds by name; numbers are strings', () => {
    const b = UriBuilder.fromTemplate('/users/{id}/orders/{orderId}');
    expect(b.buildFromMap({ orderId: 'x y', id: 7, extra: 'ignored' })).toBe('/users/7/orders/x%20y');
  });

  it('a missing value throws a TypeError naming the variable', () => {
    const b = UriBuilder.fromTemplate('/users/{id}/orders/{orderId}');
    expect(() => b.build(7)).toThrow(TypeError);
    expect(() => b.build(7)).toThrow(/"orderId"/);
    expect(() => b.build(undefined, 1)).toThrow(/"id"/);
    expect(() => b.buildFromMap({ id: 1 })).toThrow(/"orderId"/);
    expect(() => b.buildFromMap({ id: 1, orderId: null })).toThrow(/"orderId"/);
    expect(() => UriBuilder.fromTemplate('/{toString}').buildFromMap({})).toThrow(/"toString"/);
  });

  it('{name: regex} variables check the encoded value', () => {
    const b = UriBuilder.fromTemplate('/users/{id: [0-9]{1,5}}');
    expect(b.toTemplate()).toBe('/users/{id: [0-9]{1,5}}');
    expect(b.build(42)).toBe('/users/42');
    expect(() => b.build('abc')).toThrow(TypeError);
    expect(() => b.build('123456')).toThrow(/"id" does not match its regex \[0-9\]\{1,5\}/);
    expect(UriBuilder.fromTemplate('/p/{rest: .+}').build('a b')).toBe('/p/a%20b');
    expect(() => UriBuilder.fromTemplate('/p/{w: [a-z ]+}').build('a b')).toThrow(/encoded: a%20b/);
  });

  it('refuses malformed templates where they are given', () => {
    expect(() => UriBuilder.fromTemplate('/a/{id')).toThrow(/unbalanced '\{'/);
    expect(() => UriBuilder.fromTemplate('/a/id}')).toThrow(/unbalanced '\}'/);
    expect(() => UriBuilder.fromTemplate('/a/{1x}')).toThrow(/bad variable name/);
    expect(() => UriBuilder.fromTemplate('/a/{x: }')).toThrow(/empty regex/);
    expect(() => UriBuilder.fromTemplate('/a/{x: [}')).toThrow(TypeError);
    expect(() => UriBuilder.fromPath('/a').path('{x: (}')).toThrow(/invalid URI template/);
  });

  it('a template regex may hold ? # / : without splitting the URI there', () => {
    const b = UriBuilder.fromTemplate('http://h/{p: x?y/?}/x?q={v: [?#]|z:}#{f: a|/#}');
    expect(b.toTemplate()).toBe('http://h/{p: x?y/?}/x?q={v: [?#]|z:}#{f: a|/#}');
    expect(b.build('xy', 'z:', 'a')).toBe('http://h/xy/x?q=z:#a');
  });
});

describe('UriBuilder: resources', () => {
  it('fromResource gives the class @Path with one leading slash', () => {
    expect(UriBuilder.fromResource(Users).build()).toBe('/users');
    expect(UriBuilder.fromResource(Files).build()).toBe('/files/');
  });

  it("path(Class, 'method') appends the method's @Path, regex variables included", () => {
    expect(UriBuilder.fromResource(Users).path(Users, 'get').build(7)).toBe('/users/7');
    expect(() => UriBuilder.fromResource(Users).path(Users, 'get').build('x')).toThrow(/"id"/);
    expect(UriBuilder.fromUri('http://h/api').path(Users).path(Users, 'order').build(1, 'a/b')).toBe('http://h/api/users/1/orders/a%2Fb');
  });

  it('fromMethod gives the method @Path alone, inherited methods included', () => {
    expect(UriBuilder.fromMethod(Users, 'order').build(1, 2)).toBe('/1/orders/2');
    expect(UriBuilder.fromMethod(Files, 'meta').build('r.txt')).toBe('/r.txt/meta');
    expect(UriBuilder.fromResource(Files).path(Files, 'meta').build('r.txt')).toBe('/files/r.txt/meta');
  });

  it('explains what is missing', () => {
    expect(() => UriBuilder.fromResource(Undecorated)).toThrow(/^UriBuilder\.fromResource\(\): Undecorated has no class-level @Path/);
    expect(() => new UriBuilder().path(Undecorated)).toThrow(/^UriBuilder\.path\(Class\): Undecorated has no class-level @Path/);
    expect(() => UriBuilder.fromResource(FilesBase as never)).toThrow(/FilesBase has no class-level @Path/);
    expect(() => UriBuilder.fromMethod(Users, 'nope')).toThrow(/Users has no resource method 'nope'/);
    expect(() => UriBuilder.fromMethod(Undecorated, 'run')).toThrow(/no resource method 'run'/);
    expect(() => UriBuilder.fromResource(Users).path(Users, 'list')).toThrow(/Users\.list has no @Path of its own/);
    expect(() => UriBuilder.fromMethod(Files, 'upload')).toThrow(TypeError);
  });
});

import { describe, expect, it } from 'vitest';
import { compareTemplates, compileTemplate, joinPaths } from '../../src/core/routing/path-template.js';
import { OpenMatch, Router } from '../../src/core/routing/router.js';

function router(...templates: string[]): Router<string> {
  const r = new Router<string>();
  for (const t of templates) r.add(t, t);
  r.freeze();
  return r;
}
/** The first value of the matching bucket, or undefined for no match. */
const winner = (r: Router<string>, path: string): string | undefined => r.match(path)?.values[0];

describe('joinPaths', () => {
  it('joins with single slashes and drops empty or missing parts', () => {
    expect(joinPaths('/api/', '/users/{id}')).toBe('/api/users/{id}');
    expect(joinPaths('api', undefined, '', 'x/')).toBe('/api/x');
    expect(joinPaths('//a//', '//b')).toBe('/a/b');
    expect(joinPaths()).toBe('/');
    expect(joinPaths('/', '/')).toBe('/');
  });
});

describe('compileTemplate', () => {
  it('normalises the template: leading slash, no trailing or doubled slashes, root is /', () => {
    expect(compileTemplate('users/').template).toBe('/users');
    expect(compileTemplate('//a//b//').template).toBe('/a/b');
    expect(compileTemplate('/a/{x}/').template).toBe('/a/{x}');
    expect(compileTemplate('{x}').template).toBe('/{x}');
    expect(compileTemplate('').template).toBe('/');
    expect(compileTemplate('/').template).toBe('/');
    expect(compileTemplate('/a/{ id : \\d+ }').template).toBe('/a/{id: \\d+}');
  });

  it('computes the JAX-RS sort keys', () => {
    expect(compileTemplate('/users/{id}')).toMatchObject({ literalChars: 7, groups: 1, customGroups: 0, isLiteral: false, names: ['id'] });
    expect(compileTemplate('/users/{id: \\d+}/x/{y}')).toMatchObject({ literalChars: 10, groups: 2, customGroups: 1 });
    expect(compileTemplate('/users/search')).toMatchObject({ literalChars: 13, groups: 0, isLiteral: true });
    expect(compileTemplate('/a/{x: [^/]+}').customGroups).toBe(0); // the default regex spelled out
  });

  it('tolerates exactly one trailing slash', () => {
    const { regex } = compileTemplate('/users/{id}');
    expect(regex.test('/users/1')).toBe(true);
    expect(regex.test('/users/1/')).toBe(true);
    expect(regex.test('/users/1//')).toBe(false);
    expect(regex.test('/users/1/x')).toBe(false);
  });

  it('accepts regexes containing balanced braces, escapes and their own groups', () => {
    const t = compileTemplate('/n/{id: [0-9]{1,5}}/{rest: (a|b)\\}?}');
    expect(t.names).toEqual(['id', 'rest']);
    expect(t.regex.test('/n/12345/a}')).toBe(true);
    expect(t.regex.test('/n/123456/a')).toBe(false);
  });

  it('escapes regex metacharacters and URI-encodes literal text', () => {
    const dot = compileTemplate('/file.json');
    expect(dot.regex.test('/file.json')).toBe(true);
    expect(dot.regex.test('/fileXjson')).toBe(false);
    const space = compileTemplate('/a b/ü');
    expect(space.regex.test('/a%20b/%C3%BC')).toBe(true);
    expect(space.regex.test('/a%20b/%c3%bc')).toBe(true); // hex digits are case-insensitive
    expect(space.literalChars).toBe('/a%20b/%C3%BC'.length);
  });

  it.each([
    ['/a/{id', /unbalanced '\{'/],
    ['/a/id}', /unbalanced '\}'/],
    ['/a/{}', /bad variable name/],
    ['/a/{1x}', /bad variable name/],
    ['/a/{__proto__}', /bad variable name/],
    ['/a/{x y}', /bad variable name/],
    ['/a/{x:}', /empty regex/],
    ['/a/{x: [}', /Invalid path template/],
    ['/a/{x: (}', /Invalid path template/],
    ['/a/{x: a)|(b}', /Invalid path template/],
    ['/a/{x}/{x}', /duplicate variable/],
    ['/a%zz', /bad percent-encoding/],
  ])('rejects %j at start-up with the template in the message', (template, message) => {
    expect(() => compileTemplate(template)).toThrow(message);
    expect(() => compileTemplate(template)).toThrow(template);
  });
});

describe('compareTemplates (JAX-RS 3.7.2 order)', () => {
  const sorted = (...ts: string[]): string[] =>
    ts
      .map(compileTemplate)
      .sort(compareTemplates)
      .map((t) => t.template);

  it('puts more literal characters first', () => {
    expect(sorted('/users/{id}', '/users/search')).toEqual(['/users/search', '/users/{id}']);
  });

  it('then more groups, then more custom-regex groups, then the template string', () => {
    expect(sorted('/a/{x}', '/a/{x}{y}')).toEqual(['/a/{x}{y}', '/a/{x}']);
    expect(sorted('/users/{name}', '/users/{id: \\d+}')).toEqual(['/users/{id: \\d+}', '/users/{name}']);
    expect(sorted('/b/{x}', '/a/{x}')).toEqual(['/a/{x}', '/b/{x}']);
  });
});

describe('Router', () => {
  it('prefers a literal over a variable segment, and a custom regex over the default', () => {
    const r = router('/users/{name}', '/users/{id: \\d+}', '/users/search');
    expect(winner(r, '/users/search')).toBe('/users/search');
    expect(winner(r, '/users/42')).toBe('/users/{id: \\d+}');
    expect(winner(r, '/users/bob')).toBe('/users/{name}');
    expect(r.match('/users/42')?.params).toEqual({ id: '42' });
    expect(r.templates.map((t) => t.template)).toEqual(['/users/search', '/users/{id: \\d+}', '/users/{name}']);
  });

  it('extracts and decodes parameters; + is not a space in paths', () => {
    const r = router('/users/{id}/books/{isbn}');
    expect(r.match('/users/a%20b/books/x+y%2Fz')?.params).toEqual({ id: 'a b', isbn: 'x+y/z' });
  });

  it("answers exactly what each template's regex answers, parameters included", () => {
    // Whole-segment templates and paths around their edges: empty segments, '//',
    // trailing slashes, literal prefixes of the wrong length, encoded and non-ASCII values.
    const templates = ['/{a}', '/u/{id}', '/u/{id}/b/{isbn}', '/u/{id}/b', '/{a}/{b}/{c}', '/x y/{v}', '/a/{v: [^/]+}'];
    const paths = [
      '/',
      '//',
      '/u',
      '/u/',
      '/u//',
      '/u/7',
      '/u/7/',
      '/u/7//',
      '/u/7/b',
      '/u/7/b/',
      '/u/7/b/9',
      '/u/7/b/9/',
      '/u/7/b//',
      '/u/7/bb/9',
      '/u/7/b/9/x',
      '/uu/7',
      '/u/%41',
      '/u/a%20b/b/x%2Fy',
      '/u/é',
      '/x%20y/1',
      '/x y/1',
      '/a/b/c',
      '/a/b/c/',
      '/a//c',
      '/a/b/c/d',
      '/a/1',
      'u/7',
      '',
    ];
    for (const t of templates) {
      const r = router(t);
      const { regex, names } = compileTemplate(t);
      for (const p of paths) {
        const m = regex.exec(p.length === 0 ? '/' : p);
        const expected = m === null ? undefined : Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
        expect(r.match(p)?.params, `${t} ${p}`).toEqual(expected);
      }
    }
  });

  it('binds every name of equivalent templates to its position, for default and custom variables', () => {
    for (const [a, b] of [
      ['/u/{id}/x/{n}', '/u/{uid}/x/{n}'],
      ['/u/{id: \\d+}', '/u/{uid: \\d+}'],
    ] as const) {
      const r = new Router<string>();
      r.add(a, a);
      r.add(b, b);
      r.freeze();
      const m = r.match('/u/42/x/7') ?? r.match('/u/42');
      expect(m?.values).toEqual([a, b]);
      expect(m?.params).toMatchObject({ id: '42', uid: '42' });
    }
  });

  it('throws URIError for a malformed escape in a parameter', () => {
    const r = router('/users/{id}');
    expect(() => r.match('/users/%E0%A4%A')).toThrow(URIError);
    expect(() => r.match('/users/%zz')).toThrow(URIError);
  });

  it('matches with or without one trailing slash, on both paths', () => {
    const r = router('/users', '/users/{id}');
    for (const p of ['/users', '/users/']) expect(winner(r, p)).toBe('/users');
    expect(winner(r, '/users//')).toBeUndefined();
    expect(r.match('/users/7/')?.params).toEqual({ id: '7' });
  });

  it('handles the root path and the empty path', () => {
    const r = router('/', '/{x}');
    expect(winner(r, '/')).toBe('/');
    expect(winner(r, '')).toBe('/');
    expect(winner(r, '/a')).toBe('/{x}');
    expect(router('/a').match('/')).toBeUndefined();
  });

  it('answers a repeated literal path from its last match exactly as the first time, whatever came between', () => {
    const r = router('/users', '/users/{id}', '/orders', '/{x}');
    const first = r.match('/users');
    for (const p of ['/users', '/users/', '/users/7', '/users', '/orders', '/users', '/other', '/users/']) {
      const m = r.match(p);
      if (p === '/users' || p === '/users/') expect(m).toBe(first);
    }
    expect(winner(r, '/orders')).toBe('/orders');
    expect(winner(r, '/orders')).toBe('/orders');
    expect(r.match('/users/8')?.params).toEqual({ id: '8' });
    expect(winner(r, '/other')).toBe('/{x}');
    expect(winner(r, '/users')).toBe('/users');
    expect(r.match('/users')?.args).toEqual([]);
  });

  it('returns undefined when nothing matches', () => {
    const r = router('/users/{id}');
    expect(r.match('/users')).toBeUndefined();
    expect(r.match('/users/1/2')).toBeUndefined();
    expect(r.match('/other/1')).toBeUndefined();
  });

  it('shares a bucket between equivalent templates, keeping registration order and all names', () => {
    const r = new Router<string>();
    r.add('/users/{id}', 'get');
    r.add('users/{userId}/', 'put');
    r.add('/users/{id}', 'delete');
    r.freeze();
    const m = r.match('/users/5');
    expect(m?.values).toEqual(['get', 'put', 'delete']);
    expect(m?.params).toEqual({ id: '5', userId: '5' });
    expect(r.templates).toHaveLength(1);
  });

  it('keeps one value registered under several equivalent templates once (each adds its names)', () => {
    const r = new Router<string>();
    r.add('/users/{id}', 'entry');
    r.add('/users/{uid}', 'entry');
    r.freeze();
    const m = r.match('/users/5');
    expect(m?.values).toEqual(['entry']);
    expect(m?.params).toEqual({ id: '5', uid: '5' });
  });

  it('refuses equivalent templates that bind a name to different positions', () => {
    const r = new Router<string>();
    r.add('/{a}/{b}', 'x');
    expect(() => r.add('/{b}/{a}', 'y')).toThrow(/equivalent/);
  });

  it('reads parameters by position even when a user regex has its own groups', () => {
    const r = router('/v/{ver: (\\d+)\\.(\\d+)}/{name}');
    expect(r.match('/v/1.2/x')?.params).toEqual({ ver: '1.2', name: 'x' });
  });

  it('matches literal templates that need encoding, with either hex case', () => {
    const r = router('/a b', '/{x}');
    expect(winner(r, '/a%20b')).toBe('/a b');
    expect(winner(r, '/a%20b/')).toBe('/a b');
    expect(winner(r, '/c%20d')).toBe('/{x}');
    const u = router('/ü', '/{x}');
    expect(winner(u, '/%c3%bc')).toBe('/ü');
  });

  it('lets a custom-regex template outrank a literal when JAX-RS order says so', () => {
    // '/ab{x: .*}' has as many literal characters as '/ab' and one more group, so it sorts first
    // and matches '/ab' (x = ''): the literal fast path must step aside.
    const r = router('/ab', '/ab{x: .*}');
    expect(winner(r, '/ab')).toBe('/ab{x: .*}');
    expect(r.match('/ab')?.params).toEqual({ x: '' });
    // '/ab/{x: .*}' has more literal characters and matches '/ab/' but not '/ab'.
    const s = router('/ab', '/ab/{x: .*}');
    expect(winner(s, '/ab')).toBe('/ab');
    expect(winner(s, '/ab/')).toBe('/ab/{x: .*}');
  });

  it('catch-all regexes may span segments', () => {
    const r = router('/files/{path: .+}', '/files/special');
    expect(r.match('/files/a/b/c.txt')?.params).toEqual({ path: 'a/b/c.txt' });
    expect(winner(r, '/files/special')).toBe('/files/special');
  });

  it('returns a fresh params object for every match', () => {
    const r = router('/a', '/b/{x}');
    const m1 = r.match('/a');
    const m2 = r.match('/a');
    expect(m1?.params).not.toBe(m2?.params);
    expect(r.match('/b/1')?.params).not.toBe(r.match('/b/1')?.params);
  });

  it('enforces freeze: no add after, no match before', () => {
    const r = new Router<string>();
    r.add('/a', 'a');
    expect(() => r.match('/a')).toThrow(/freeze/);
    r.freeze();
    expect(() => r.add('/b', 'b')).toThrow(/frozen/);
  });

  it('routes many templates correctly in JAX-RS order', () => {
    const r = new Router<string>();
    const n = 500;
    for (let i = 0; i < n; i++) {
      r.add(`/r${i}`, `lit${i}`);
      r.add(`/r${i}/{id}`, `var${i}`);
      r.add(`/r${i}/{id: \\d+}`, `num${i}`);
      r.add(`/r${i}/{id}/items/{item}`, `item${i}`);
    }
    r.freeze();
    expect(r.templates).toHaveLength(4 * n);
    for (let i = 0; i < n; i += 7) {
      expect(winner(r, `/r${i}`)).toBe(`lit${i}`);
      expect(winner(r, `/r${i}/`)).toBe(`lit${i}`);
      expect(winner(r, `/r${i}/abc`)).toBe(`var${i}`);
      expect(winner(r, `/r${i}/123`)).toBe(`num${i}`);
      expect(r.match(`/r${i}/x/items/y`)).toMatchObject({ values: [`item${i}`], params: { id: 'x', item: 'y' } });
    }
    expect(r.match('/r99999')).toBeUndefined();
  });

  it('keeps JAX-RS order between literal-first and variable-first templates in a big table', () => {
    const r = new Router<string>();
    for (let i = 0; i < 40; i++) r.add(`/r${i}/{id}`, `r${i}`);
    for (const t of ['/{a}/special', '/r1{x}', '/{a}/{b}/{c}', '/r1/{id}/deep']) r.add(t, t);
    r.freeze();
    expect(winner(r, '/r1/special')).toBe('/{a}/special'); // 9 literal chars beat '/r1/' (4)
    expect(winner(r, '/r1/other')).toBe('r1');
    expect(winner(r, '/r1abc')).toBe('/r1{x}');
    expect(winner(r, '/r1/x/deep')).toBe('/r1/{id}/deep');
    expect(winner(r, '/r1/x/y')).toBe('/{a}/{b}/{c}');
    expect(winner(r, '/zz/special')).toBe('/{a}/special');
    expect(winner(r, '/zz/q')).toBeUndefined();
  });

  it('skips templates longer than the path by length alone, with the same answers as the regexes', () => {
    const templates = ['/users/{id}/orders', '/users/{id}', '/u/{x}', '/a/{rest: .*}', '/p%20q/{x}', '/{a}/{b}/{c}'];
    const r = router(...templates);
    expect(winner(r, '/users/7')).toBe('/users/{id}');
    expect(winner(r, '/users/7/orders')).toBe('/users/{id}/orders');
    expect(winner(r, '/u/a')).toBe('/u/{x}'); // exactly the shortest path '/u/{x}' can match
    expect(winner(r, '/a/')).toBe('/a/{rest: .*}'); // a custom regex may match ''
    expect(winner(r, '/p%20q/z')).toBe('/p%20q/{x}'); // %XX counts three characters
    expect(winner(r, '/p%20q/')).toBeUndefined();
    // Every template answers exactly as its own regex for paths around its minimum length.
    for (const path of [
      '/',
      '/u',
      '/u/',
      '/u/a',
      '/u/ab/',
      '/users/',
      '/users/7/',
      '/users/7/orders/',
      '/x/y/z',
      '/x/y/',
      '/a',
      '/a/b/c',
    ]) {
      const expected = r.templates.find((t) => t.regex.test(path))?.template;
      expect(winner(r, path), path).toBe(expected);
    }
  });
});

describe('Router: open templates (sub-resource locators)', () => {
  const open = (...pairs: Array<[string, boolean]>): Router<string> => {
    const r = new Router<string>();
    for (const [t, isOpen] of pairs) r.add(t, `${isOpen ? 'locator' : 'method'} ${t}`, isOpen);
    r.freeze();
    return r;
  };

  it('match the beginning of a path and hand over the rest, still encoded', () => {
    const r = open(['/shops/{shop}', true]);
    const m = r.match('/shops/acme/items/7%2F8') as OpenMatch<string>;
    expect(m).toBeInstanceOf(OpenMatch);
    expect(m.params).toEqual({ shop: 'acme' });
    expect(m.rest).toBe('/items/7%2F8');
    expect((r.match('/shops/acme') as OpenMatch<string>).rest).toBe('');
    expect((r.match('/shops/acme/') as OpenMatch<string>).rest).toBe('/');
    expect(r.match('/shopsx/acme')).toBeUndefined();
    expect(r.match('/shops')).toBeUndefined();
  });

  it('a literal open template and the root', () => {
    expect((open(['/a', true]).match('/a/b') as OpenMatch<string>).rest).toBe('/b');
    expect(open(['/a', true]).match('/ab')).toBeUndefined();
    expect((open(['/', true]).match('/x/y') as OpenMatch<string>).rest).toBe('/x/y');
  });

  it('a resource method beats a locator of an equal template; a longer template beats both', () => {
    const r = open(['/t/{x}', true], ['/t/{x}', false], ['/t/{x}/special', false]);
    expect(winner(r, '/t/1')).toBe('method /t/{x}');
    expect(winner(r, '/t/1/')).toBe('method /t/{x}');
    expect(winner(r, '/t/1/more')).toBe('locator /t/{x}');
    expect(winner(r, '/t/1/special')).toBe('method /t/{x}/special');
  });

  it('a literal method template stays on the fast path and is not shadowed by a locator', () => {
    const r = open(['/items', true], ['/items', false], ['/items/all', false]);
    expect(winner(r, '/items')).toBe('method /items');
    expect(winner(r, '/items/all')).toBe('method /items/all');
    expect(winner(r, '/items/other')).toBe('locator /items');
  });
});

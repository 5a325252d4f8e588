/**
 * Example 21, conditional requests and caching (Jakarta REST 3.1 §3.5, RFC 9110 §13, RFC 9111):
 *
 *   curl -i localhost:3000/docs/readme                          → 200, ETag: "readme-1", Cache-Control, Last-Modified
 *   curl -i -H 'If-None-Match: "readme-1"' localhost:3000/docs/readme          → 304, no body
 *   curl -i -X PUT -H 'If-Match: "readme-1"' -H 'content-type: text/plain' -d 'v2' localhost:3000/docs/readme  → 200, ETag "readme-2"
 *   curl -i -X PUT -H 'If-Match: "readme-1"' -H 'content-type: text/plain' -d 'v3' localhost:3000/docs/readme  → 412, nothing changed
 *   curl -i localhost:3000/catalog                              → ETag computed by ETagFeature over the bytes
 *   curl -i -H 'If-None-Match: <that tag>' localhost:3000/catalog               → 304 (answered by the feature)
 *   curl -i --compressed localhost:3000/catalog                 → gzip, ETag "<tag>-gzip"
 *   curl -i -X POST localhost:3000/docs/readme/visit            → 303 See Other, Location, a Set-Cookie
 *
 * `Docs` computes its own tags (cheap: a revision counter) and decides preconditions before doing
 * any work; `Catalog` computes none and lets the opt-in `ETagFeature` tag what it writes.
 */
import {
  Application,
  CacheControl,
  Consumes,
  Context,
  ContainerRequestContext,
  EntityTag,
  ETagFeature,
  GET,
  GzipFeature,
  NewCookie,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Produces,
  PUT,
  Response,
  Entity,
} from '@jaxrs-node/pipeline';

interface Doc {
  text: string;
  rev: number;
  modified: Date;
}

@Path('/docs')
export class Docs {
  private readonly docs = new Map<string, Doc>([['readme', { text: 'v1', rev: 1, modified: new Date('2026-01-01T00:00:00Z') }]]);

  private find(name: string): Doc {
    const doc = this.docs.get(name);
    if (doc === undefined) throw new NotFoundError(`No document ${name}`);
    return doc;
  }

  private static tag(name: string, doc: Doc): EntityTag {
    return new EntityTag(`${name}-${doc.rev}`);
  }

  @GET() @Path('{name}') @Produces('text/plain') get(@PathParam('name') name: string, @Context() ctx: ContainerRequestContext): Response {
    const doc = this.find(name);
    const tag = Docs.tag(name, doc);
    const cache = new CacheControl({ maxAge: 0, private: true, mustRevalidate: true });
    // 304 (If-None-Match / If-Modified-Since) before any work; it keeps the validators and Cache-Control.
    const stop = ctx.evaluatePreconditions({ tag, lastModified: doc.modified });
    if (stop !== undefined) return Response.fromResponse(stop).cacheControl(cache).build();
    return Response.ok(doc.text).tag(tag).lastModified(doc.modified).cacheControl(cache).build();
  }

  @PUT()
  @Path('{name}')
  @Consumes('text/plain')
  put(@PathParam('name') name: string, @Entity() text: string, @Context() ctx: ContainerRequestContext): Response {
    const doc = this.find(name);
    // A stale If-Match is a 412 and nothing changes; no If-Match at all is accepted.
    const stop = ctx.evaluatePreconditions({ tag: Docs.tag(name, doc), lastModified: doc.modified });
    if (stop !== undefined) return stop;
    doc.text = text;
    doc.rev++;
    doc.modified = new Date(Math.floor(Date.now() / 1000) * 1000);
    return Response.ok(doc.text).tag(Docs.tag(name, doc)).lastModified(doc.modified).build();
  }

  @POST() @Path('{name}/visit') visit(@PathParam('name') name: string): Response {
    this.find(name);
    return Response.seeOther(`/docs/${name}`)
      .cookie(new NewCookie('last-doc', name, { path: '/', maxAge: 3600, httpOnly: true, sameSite: 'Lax' }))
      .build();
  }
}

@Path('/catalog')
export class Catalog {
  @GET() list(): object {
    return { items: Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` })) };
  }
}

export function createApp(): Application {
  return new Application({ resources: [Docs, Catalog], providers: [new ETagFeature(), new GzipFeature({ threshold: 256 })] });
}

/**
 * Example 26, OpenAPI 3.1 from the declarations that route and validate: `OpenApiFeature` builds
 * the document once from the routes the application serves and the constraint decorators its
 * validator checks, so the two cannot disagree. A few `Api*` decorators add what TypeScript's
 * metadata loses (the status a `Response` carries, array element types, headers); the statuses
 * the pipeline itself produces (400, 404, 413, 415, 500) and the security schemes are documented
 * without them. Swagger UI is served at /docs from the optional `swagger-ui-dist` package, which
 * this package installs (a development dependency here); without it /docs answers a 404 saying so.
 *
 *   curl localhost:3000/openapi.json                         → the document (ETag; 304 on If-None-Match)
 *   open http://localhost:3000/docs                          → Swagger UI (strict Content-Security-Policy)
 *   curl -i -H 'content-type: application/json' -d '{"title":"","tags":["x"]}' localhost:3000/notes
 *                                                            → 400: the same rule the document shows (minLength 1)
 *   curl -i -X DELETE -H 'authorization: Bearer editor-token' localhost:3000/notes/1   → 204
 */
import {
  ApiOperation,
  ApiResponse,
  ApiTags,
  Application,
  ArrayOf,
  BeanParam,
  DefaultValue,
  DELETE,
  GET,
  Int,
  Max,
  Min,
  NotBlank,
  NotFoundError,
  OpenApiFeature,
  Path,
  PathParam,
  POST,
  QueryParam,
  Response,
  RolesAllowed,
  RolesAllowedFeature,
  SecurityContext,
  Size,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  Priority,
  Priorities,
} from '@jaxrs-node/pipeline';

/** A note as the API returns it. */
export class Note {
  @Min(1) id!: number;
  @NotBlank() title!: string;
  @ArrayOf(String) tags!: string[];
}

/** The body of `POST /notes`: validated by the pipeline, documented from the same decorators. */
export class NewNote {
  @NotBlank() @Size({ max: 80 }) title!: string;
  @ArrayOf(String) @Size({ max: 5 }) tags?: string[];
}

/** Paging parameters: typed (`Int`), defaulted and bounded, in the document as in the server. */
export class PageQuery {
  @QueryParam('offset', { type: Int }) @DefaultValue('0') @Min(0) offset!: number;
  @QueryParam('limit', { type: Int }) @DefaultValue('10') @Min(1) @Max(50) limit!: number;
}

/** A toy bearer check: the token `editor-token` is the editor (use a real verifier in production). */
@Priority(Priorities.AUTHENTICATION)
export class BearerAuth implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    if (ctx.getHeader('authorization') === 'Bearer editor-token')
      ctx.securityContext = SecurityContext.of({ name: 'editor' }, ['editor'], 'Bearer');
  }
}

@Path('/notes')
@ApiTags('notes')
export class NotesResource {
  private readonly notes = new Map<number, Note>([[1, { id: 1, title: 'Read the spec', tags: ['openapi'] }]]);
  private next = 2;

  @GET()
  @ApiOperation({ summary: 'A page of notes' })
  @ApiResponse(200, { type: [Note], headers: { 'X-Total-Count': { description: 'Notes in all pages', schema: { type: 'integer' } } } })
  list(@BeanParam() page: PageQuery): Response {
    const all = [...this.notes.values()];
    return Response.ok(all.slice(page.offset, page.offset + page.limit))
      .header('x-total-count', all.length)
      .build();
  }

  @GET('{id}')
  get(@PathParam('id', { type: Int }) @Min(1) id: number): Note {
    const note = this.notes.get(id);
    if (note === undefined) throw new NotFoundError(`note ${id}`);
    return note;
  }

  @POST()
  @ApiResponse(201, { type: Note, headers: { Location: 'The new note' } })
  create(body: NewNote): Response {
    const note: Note = { id: this.next++, title: body.title, tags: body.tags ?? [] };
    this.notes.set(note.id, note);
    return Response.created(`notes/${note.id}`).entity(note).build();
  }

  @DELETE('{id}')
  @RolesAllowed('editor')
  @ApiResponse(204)
  remove(@PathParam('id', { type: Int }) id: number): void {
    this.notes.delete(id);
  }
}

/** The feature's options: the document's info, and which scheme protects what. */
export const OPENAPI = {
  info: { title: 'Notes', version: '1.0.0', description: 'Example 26 of @jaxrs-node/pipeline' },
  tags: { notes: 'Short notes, each with a few tags' },
  securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
  security: [{ binding: RolesAllowed, schemes: ['bearer'] }],
};

export function createApp(): Application {
  return new Application({
    resources: [NotesResource],
    providers: [
      BearerAuth,
      new RolesAllowedFeature(),
      // swagger-ui-dist is looked up from this module, so the page works whatever the working directory.
      new OpenApiFeature({ ...OPENAPI, resolveFrom: import.meta.url }),
    ],
  });
}

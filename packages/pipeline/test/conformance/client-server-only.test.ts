/**
 * A typed client of a contract whose methods take what only the server supplies (`@Context()`
 * request context, `UriInfo`, `HttpHeaders`, `SecurityContext`) and return `Response<T>`: the
 * client's methods take the other arguments in order and map each to its parameter, an
 * `AbortSignal` parameter is the call's signal, and a `Response<T>` method resolves with the
 * entity (read as the `@ApiResponse` type of the status when one is declared), over both
 * transports (in-process `inject()` and undici over a socket).
 */
import 'reflect-metadata';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ApiResponse,
  Application,
  Consumes,
  Context,
  EntityTag,
  GET,
  HeaderParam,
  HttpHeaders,
  Path,
  PathParam,
  POST,
  Produces,
  QueryParam,
  readBody,
  Response,
  SecurityContext,
  UriInfo,
  ContainerRequestContext,
  type MediaType,
  type MessageBodyReader,
  type ReadContext,
  type TypeToken,
} from '../../src/index.js';
import { ClientResponseError, withCallOptions } from '../../src/client/index.js';
import { CLIENT_TRANSPORTS, serveForClients } from '../helpers/client-transports.js';

/** The entity class a client reader revives (its date from the JSON string). */
class Note {
  constructor(
    readonly id: number,
    readonly text: string,
    readonly at: Date,
  ) {}
}

/** A client reader for `Note` only: proves the `@ApiResponse` type reached the read. */
class NoteReader implements MessageBodyReader<Note> {
  readonly consumes = ['application/json'];
  isReadable(type: TypeToken): boolean {
    return type === Note;
  }
  async readFrom(_t: TypeToken, _m: MediaType | undefined, input: Readable, ctx: ReadContext): Promise<Note> {
    const v = JSON.parse((await readBody(input, ctx.limit, ctx.contentLength)).toString('utf8')) as {
      id: number;
      text: string;
      at: string;
    };
    return new Note(v.id, v.text, new Date(v.at));
  }
}

const unused = (): never => {
  throw new Error('contract method: the server resource or the client proxy implements it');
};

@Path('/notes')
@Produces('application/json')
abstract class NotesApi {
  /** Conditional GET: 304 when the tag matches (the request context is the server's). */
  @GET('{id}') @ApiResponse(200, { type: Note }) get(
    @PathParam('id') _id: number,
    @Context() _ctx: ContainerRequestContext,
    @QueryParam('upper') _upper?: boolean,
  ): Response<Note> {
    return unused();
  }
  /** 201 + Location from the UriInfo; the header after it is the client's second argument. */
  @POST() @Consumes('application/json') @ApiResponse(201, { type: Note }) create(
    _body: { text: string },
    @Context() _uri: UriInfo,
    @HeaderParam('x-author') _author?: string,
  ): Promise<Response<Note>> {
    return unused();
  }
  /** Context parameters between and around the client's: only `q` and `x-trace` are sent. */
  @GET('echo') echo(
    @Context() _headers: HttpHeaders,
    @QueryParam('q') _q: string,
    @Context() _security: SecurityContext,
    @HeaderParam('x-trace') _trace: string,
    @Context() _uri: UriInfo,
  ): Promise<{ q: string; trace: string; path: string; anonymous: boolean; accept: string | null }> {
    return unused();
  }
  /** The server gets its request's signal; the client passes the call's. */
  @GET('wait') wait(@Context() _signal: AbortSignal): Promise<string> {
    return unused();
  }
}

let waiting = 0;

class NotesResource extends NotesApi {
  private readonly notes = new Map<number, { id: number; text: string; at: string }>([
    [1, { id: 1, text: 'first', at: '2026-01-02T03:04:05.000Z' }],
  ]);

  override get(id: number, ctx: ContainerRequestContext, upper?: boolean): Response<Note> {
    const note = this.notes.get(id);
    if (note === undefined) return Response.notFound().build();
    const tag = new EntityTag(`n${id}`);
    const entity = upper === true ? { ...note, text: note.text.toUpperCase() } : note;
    return ctx.evaluatePreconditions({ tag }) ?? Response.ok(entity).tag(tag).build();
  }
  override async create(body: { text: string }, uri: UriInfo, author?: string): Promise<Response<Note>> {
    const note = { id: this.notes.size + 1, text: `${body.text} by ${author ?? 'nobody'}`, at: '2026-02-03T04:05:06.000Z' };
    this.notes.set(note.id, note);
    return Response.created(uri.baseUriBuilder().path(NotesResource).path(NotesResource, 'get').build(note.id)).entity(note).build();
  }
  override async echo(headers: HttpHeaders, q: string, security: SecurityContext, trace: string, uri: UriInfo) {
    return { q, trace, path: uri.path, anonymous: !security.authenticated, accept: headers.get('accept') ?? null };
  }
  override wait(signal: AbortSignal): Promise<string> {
    waiting++;
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  }
}

describe.each(CLIENT_TRANSPORTS)('typed client: server-only parameters left out, Response<T> typed (%s)', (transport) => {
  const suite = serveForClients(transport, () => new Application({ resources: [NotesResource] }));
  const notes = () => suite.client({ providers: [new NoteReader()] }).proxy(NotesApi);
  const raw = () => suite.client({ providers: [new NoteReader()] }).responseProxy(NotesApi);

  it('the arguments the client passes reach their parameters; the server fills its own', async () => {
    expect(await notes().echo('a b', 't-1')).toEqual({
      q: 'a b',
      trace: 't-1',
      path: '/notes/echo',
      anonymous: true,
      accept: 'application/json',
    });
  });

  it('a Response<T> method resolves with its entity, read as the @ApiResponse type of the status', async () => {
    const note = await notes().get(1);
    expect(note).toBeInstanceOf(Note);
    expect(note.at).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect((await notes().get(1, true)).text).toBe('FIRST');
    const created = await notes().create({ text: 'second' }, 'ada');
    expect(created).toBeInstanceOf(Note);
    expect(created.text).toBe('second by ada');
  });

  it('the response proxy: status, Location and ETag reachable, readEntity() typed; 304 on a matching tag', async () => {
    const r = await raw().create({ text: 'third' });
    expect(r.status).toBe(201);
    const note = await r.readEntity();
    expect(note).toMatchObject({ text: 'third by nobody' });
    expect(r.getHeader('location')).toMatch(new RegExp(`/notes/${note.id}$`));
    const first = await raw().get(1);
    expect(first.status).toBe(200);
    const tag = first.getHeader('etag')!;
    expect(tag).toBe('"n1"');
    expect((await first.readEntity()).text).toBe('first');
    const again = await withCallOptions(raw(), { headers: { 'if-none-match': tag } }).get(1);
    expect(again.status).toBe(304);
    expect(again.hasEntity()).toBe(false);
  });

  it('an error status of a Response<T> method rejects with ClientResponseError', async () => {
    const e = await notes()
      .get(404)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClientResponseError);
    expect((e as ClientResponseError).status).toBe(404);
  });

  it('an AbortSignal parameter is the call signal: aborting it rejects the call with its reason, and the server sees its request signal fire', async () => {
    const controller = new AbortController();
    const before = waiting;
    const call = notes().wait(controller.signal);
    const outcome = call.catch((x: unknown) => x);
    await expect.poll(() => waiting, { timeout: 5000 }).toBe(before + 1);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
  });
});

/**
 * Inherited contracts (Jakarta REST 3.1 §3.6): a resource class inherits the routes, parameters
 * and name bindings its decorated superclasses (abstract ones included) declare; an override
 * with decorators of its own replaces the inherited ones, an override without keeps them.
 */
import { describe, expect, it } from 'vitest';
import {
  Application,
  DELETE,
  Entity,
  GET,
  IsInt,
  Min,
  NameBinding,
  NotBlank,
  Path,
  PathParam,
  POST,
  Produces,
  QueryParam,
  Response,
  type Constructor,
  type ContainerResponseContext,
  type ContainerResponseFilter,
  type ContainerRequestContext,
  type MediaType,
  type MessageBodyWriter,
  type TypeToken,
} from '../../src/index.js';
import { serveForSuite, TRANSPORTS } from '../helpers/transports.js';

const Audited = NameBinding('Audited');

@Audited()
class AuditFilter implements ContainerResponseFilter {
  filterResponse(_req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.setHeader('x-audited', 'yes');
  }
}

/**
 * The generic base: one declaration of the CRUD contract, its entity type given by the concrete
 * class (a class expression, so the entity parameter's type is known to the reader and validator).
 */
function CrudResource<T extends { name: string }>(type: Constructor<T>) {
  @Audited()
  @Produces('application/json')
  abstract class Crud {
    protected readonly items = new Map<number, T>();
    private next = 1;

    @GET() list(@QueryParam('prefix') prefix?: string): T[] {
      return [...this.items.values()].filter((i) => prefix === undefined || i.name.startsWith(prefix));
    }
    @GET() @Path('{id}') get(@PathParam('id') id: number): T | Response {
      return this.items.get(id) ?? Response.notFound().build();
    }
    @POST() create(@Entity(type) item: T): Response {
      const id = this.next++;
      this.items.set(id, item);
      return Response.status(201)
        .entity({ id, ...item, kind: this.kind() })
        .build();
    }
    @DELETE() @Path('{id}') remove(@PathParam('id') id: number): void {
      this.items.delete(id);
    }
    protected abstract kind(): string;
  }
  return Crud;
}

class Cat {
  @NotBlank() name!: string;
  @IsInt() @Min(1) lives!: number;
}
class Dog {
  @NotBlank() name!: string;
}

@Path('/cats')
class Cats extends CrudResource(Cat) {
  protected kind(): string {
    return 'cat';
  }
}

/** The list `Dogs` answers as text: its own class, so that its writer writes no other array. */
class DogList extends Array<Dog> {}

/**
 * Writes a {@link DogList} as text (the names, comma-separated): build() refuses a method whose
 * declared return type no registered writer writes as its `@Produces` type.
 */
class DogListText implements MessageBodyWriter<DogList> {
  readonly produces = ['text/plain'];
  isWriteable(type: TypeToken, mediaType: MediaType): boolean {
    return type === DogList && mediaType.essence === 'text/plain';
  }
  writeTo(dogs: DogList): string {
    return dogs.map((d) => d.name).join(',');
  }
}

@Path('/dogs')
class Dogs extends CrudResource(Dog) {
  protected kind(): string {
    return 'dog';
  }
  /** Own decorators: replace the inherited ones (text, written by DogListText; no query parameter). */
  @GET() @Produces('text/plain') override list(): DogList {
    return DogList.from(this.items.values());
  }
  /** No decorators: the inherited route and parameters stay, this body runs. */
  override get(id: number): Dog | Response {
    const dog = this.items.get(id);
    return dog === undefined ? Response.status(404).entity({ missing: id }).build() : { name: dog.name.toUpperCase() };
  }
}

/** A plain abstract base with the class-level @Path: a subclass without its own inherits it. */
@Path('/things')
abstract class ThingsBase {
  @GET() all(): string[] {
    return ['base'];
  }
}
class Things extends ThingsBase {}

describe.each(TRANSPORTS)('inherited contracts (%s)', (transport) => {
  const send = serveForSuite(transport, () => new Application({ resources: [Cats, Dogs, Things], providers: [AuditFilter, DogListText] }));

  it('each subclass serves the routes of the generic base under its own @Path', async () => {
    const cat = await send({ method: 'POST', url: '/cats', body: { name: 'Tom', lives: 9 } });
    expect(cat.status).toBe(201);
    expect(cat.json()).toEqual({ id: 1, name: 'Tom', lives: 9, kind: 'cat' });
    const dog = await send({ method: 'POST', url: '/dogs', body: { name: 'Rex' } });
    expect(dog.json()).toEqual({ id: 1, name: 'Rex', kind: 'dog' });
    expect((await send('/cats/1')).json()).toEqual({ name: 'Tom', lives: 9 });
    expect((await send('/cats?prefix=T')).json()).toEqual([{ name: 'Tom', lives: 9 }]);
    expect((await send('/cats?prefix=X')).json()).toEqual([]);
    expect((await send({ method: 'DELETE', url: '/cats/1' })).status).toBe(204);
    expect((await send('/cats/1')).status).toBe(404);
  });

  it('inherited parameters convert and the entity type given by the subclass is validated', async () => {
    expect((await send('/cats/abc')).status).toBe(400);
    const bad = await send({ method: 'POST', url: '/cats', body: { name: '', lives: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('lives');
  });

  it("the base class's name binding applies to the subclasses' routes", async () => {
    expect((await send('/cats')).headers['x-audited']).toBe('yes');
    expect((await send('/dogs')).headers['x-audited']).toBe('yes');
    expect((await send('/things')).headers['x-audited']).toBeUndefined();
  });

  it('an override with decorators replaces the inherited ones; one without keeps them', async () => {
    await send({ method: 'POST', url: '/dogs', body: { name: 'Fido' } });
    const list = await send('/dogs');
    expect(list.headers['content-type']).toMatch(/^text\/plain/);
    expect(list.text).toContain('Fido');
    const one = await send('/dogs/1');
    expect(one.json().name).toMatch(/^[A-Z]+$/);
    expect((await send('/dogs/99')).json()).toEqual({ missing: 99 });
  });

  it("a subclass without @Path inherits its superclass's", async () => {
    expect((await send('/things')).json()).toEqual(['base']);
  });
});

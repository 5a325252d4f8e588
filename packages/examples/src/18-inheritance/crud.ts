/**
 * A generic CRUD contract, declared once: the routes, parameters and media types live on an
 * abstract class; every concrete resource inherits them (Jakarta REST 3.1 §3.6). The entity
 * class is a parameter of the factory, so the reader and the validator know it.
 */
import {
  DELETE,
  Entity,
  GET,
  NotFoundError,
  Path,
  PathParam,
  POST,
  Produces,
  PUT,
  QueryParam,
  Response,
  type Constructor,
} from '@jaxrs-node/pipeline';

/** What every stored record has. */
export interface Named {
  name: string;
}

/** The CRUD base for entities of `type`; subclasses add `@Path` (and may override any method). */
export function CrudResource<T extends Named>(type: Constructor<T>) {
  @Produces('application/json')
  abstract class Crud {
    /** The records, by id (public: TypeScript cannot export protected members of a class made by a function). */
    readonly items = new Map<number, T>();
    /** The next id. */
    nextId = 1;

    /** Its name in error messages and `Location`s: 'cat', 'dog'. */
    abstract readonly noun: string;

    @GET() list(@QueryParam('prefix') prefix?: string): Array<T & { id: number }> {
      return [...this.items].filter(([, v]) => prefix === undefined || v.name.startsWith(prefix)).map(([id, v]) => ({ id, ...v }));
    }

    @GET() @Path('{id}') get(@PathParam('id') id: number): T & { id: number } {
      const item = this.items.get(id);
      if (item === undefined) throw new NotFoundError(`No ${this.noun} ${id}`);
      return { id, ...item };
    }

    @POST() create(@Entity(type) item: T): Response {
      const id = this.nextId++;
      this.items.set(id, { ...item });
      return Response.created(`${this.noun}s/${id}`)
        .entity({ id, ...item })
        .build();
    }

    @PUT() @Path('{id}') replace(@PathParam('id') id: number, @Entity(type) item: T): T & { id: number } {
      this.get(id);
      this.items.set(id, { ...item });
      return { id, ...item };
    }

    @DELETE() @Path('{id}') remove(@PathParam('id') id: number): void {
      this.get(id);
      this.items.delete(id);
    }
  }
  return Crud;
}

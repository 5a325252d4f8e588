/**
 * Example 18, inherited contracts: two resources, one CRUD declaration (`crud.ts`).
 *
 *   curl -i -H 'content-type: application/json' -d '{"name":"Tom","lives":9}' localhost:3000/cats  → 201
 *   curl -H 'content-type: application/json' -d '{"name":"Tom","lives":0}' localhost:3000/cats     → 400 (lives >= 1)
 *   curl localhost:3000/cats/1                         → {"id":1,"name":"Tom","lives":9}
 *   curl -H 'content-type: application/json' -d '{"name":"Rex"}' localhost:3000/dogs
 *   curl localhost:3000/dogs                           → "Rex" (text: Dogs overrides list with its own decorators)
 *   curl localhost:3000/dogs/1                         → {"id":1,"name":"REX"} (override without decorators: same route, new body)
 *
 * An override with decorators of its own replaces the inherited ones; one without keeps them.
 */
import { Application, GET, IsInt, Min, NotBlank, Path, Produces } from '@jaxrs-node/pipeline';
import { CrudResource } from './crud.js';

export class Cat {
  @NotBlank() name!: string;
  @IsInt() @Min(1) lives!: number;
}

export class Dog {
  @NotBlank() name!: string;
}

@Path('/cats')
export class Cats extends CrudResource(Cat) {
  readonly noun = 'cat';
}

@Path('/dogs')
export class Dogs extends CrudResource(Dog) {
  readonly noun = 'dog';

  /** Own decorators: this replaces the inherited JSON list with a text one. */
  @GET() @Produces('text/plain') override list(): never {
    return [...this.items.values()].map((d) => d.name).join('\n') as never;
  }

  /** No decorators: the inherited `GET /dogs/{id}` route and its parameter stay; this body runs. */
  override get(id: number): Dog & { id: number } {
    const dog = super.get(id);
    return { id: dog.id, name: dog.name.toUpperCase() };
  }
}

export function createApp(): Application {
  return new Application({ resources: [Cats, Dogs] });
}

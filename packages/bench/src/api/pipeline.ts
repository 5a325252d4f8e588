/**
 * The write-path workloads on the pipeline (see model.ts), written as a user of its public API
 * would: an entity class with validation decorators (checked in the VALIDATION slot, every
 * violation listed), `Response.created` with a relative location (made absolute against the base
 * URI), and `evaluatePreconditions` for the conditional GET. Default options (body limits, JSON
 * depth and prototype-key protections on).
 */
import 'reflect-metadata';
import {
  Application,
  Consumes,
  Context,
  ContainerRequestContext,
  Email,
  EntityTag,
  GET,
  IsInt,
  Max,
  Min,
  NotBlank,
  NotNull,
  Path,
  PathParam,
  POST,
  Response,
  Size,
} from '@jaxrs-node/pipeline';
import { announce, exitOnSignal, portFromEnv } from '../common.js';
import { AGE, createUser, FIRST_NAME, LAST_NAME, listedUser, listUsers, VERSION, type CreatedUser, type ListedUser } from './model.js';

/** The validated create's body: the four checks, all fields required. */
export class CreateUserInput {
  @NotNull() @Email() email!: string;
  @NotNull() @Size(FIRST_NAME) firstName!: string;
  @NotBlank() @Size(LAST_NAME) lastName!: string;
  @NotNull() @IsInt() @Min(AGE.min) @Max(AGE.max) age!: number;
}

/** The unchecked create's body: the same fields, no constraints (nothing to validate). */
export interface PlainUserInput {
  email: string;
  firstName: string;
  lastName: string;
  age: number;
}

@Path('/api/users')
export class UsersResource {
  /** The validated create: 201 + Location + the six-field user, or the pipeline's 400 listing every violation. */
  @POST()
  @Consumes('application/json')
  create(input: CreateUserInput): Response<CreatedUser> {
    const user = createUser(input);
    return Response.created(`/api/users/${user.id}`).entity(user).build();
  }

  /** The same create without validation (the JSON POST workload). */
  @POST()
  @Path('unchecked')
  @Consumes('application/json')
  createUnchecked(input: PlainUserInput): Response<CreatedUser> {
    const user = createUser(input);
    return Response.created(`/api/users/${user.id}`).entity(user).build();
  }

  /** 50 users. */
  @GET()
  list(): ListedUser[] {
    return listUsers();
  }

  /** One user with its tag; 304 when If-None-Match matches (RFC 9110 §13.1.2). */
  @GET()
  @Path('{id}')
  get(@PathParam('id') id: number, @Context() ctx: ContainerRequestContext): Response<ListedUser> {
    const tag = new EntityTag(`${id}-${VERSION}`);
    const stop = ctx.evaluatePreconditions({ tag });
    if (stop !== undefined) return stop;
    return Response.ok(listedUser(id)).tag(tag).build();
  }
}

const app = new Application({ resources: [UsersResource] });
const { port } = await app.listen(portFromEnv(), '127.0.0.1');
announce(port);
exitOnSignal(() => void app.close(200));

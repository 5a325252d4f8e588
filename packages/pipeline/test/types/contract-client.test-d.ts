/**
 * Type-level tests of the typed client (checked by the typecheck step, not run): the parameters
 * the server supplies are left out of a client's methods, `Response<T>` gives the client `T`,
 * and what a client may not call fails to compile (each `@ts-expect-error` line must be an error).
 */
import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  Context,
  EntityTag,
  GET,
  HeaderParam,
  HttpHeaders,
  Path,
  PathParam,
  POST,
  Response,
  ResourceInfo,
  SecurityContext,
  Sse,
  SseEventSink,
  UriInfo,
  type ContainerRequestContext,
  type ServerOnly,
} from '../../src/index.js';
import {
  Client,
  createClient,
  EntityPart,
  type ClientParameters,
  type ClientResponse,
  type ContractClient,
  type ResponseContractClient,
} from '../../src/client/index.js';
import type { MultipartBody } from '../../src/features/multipart/index.js';

/** `true` when `A` and `B` are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(): T => true as T;

interface User {
  id: number;
  name: string;
}
const unused = (): never => {
  throw new Error('contract');
};

@Path('/users')
abstract class UsersApi {
  @GET('{id}') get(@PathParam('id') _id: number, @Context() _ctx: ContainerRequestContext): Response<User> {
    return unused();
  }
  @POST() create(
    _body: Omit<User, 'id'>,
    @Context() _uri: UriInfo,
    @HeaderParam('idempotency-key') _key?: string,
  ): Promise<Response<User>> {
    return unused();
  }
  @GET() list(@Context() _headers: HttpHeaders, @Context() _security: SecurityContext, @Context() _info: ResourceInfo): User[] {
    return unused();
  }
  @GET('events') events(@Context() _sink: SseEventSink, @Context() _sse: Sse, @Context() _raw: IncomingMessage): void {
    return unused();
  }
  @GET('slow') slow(@Context() _signal: AbortSignal): Promise<string> {
    return unused();
  }
  @GET('plain') plain(): Response {
    return unused();
  }
  @POST('upload') upload(_body: Readable, @Context() _uri?: UriInfo): Promise<{ bytes: number }> {
    return unused();
  }
  @POST('parts') parts(_body: MultipartBody, @Context() _uri: UriInfo): Promise<Response<{ id: string }>> {
    return unused();
  }
}

/** The server keeps compiling: a built `Response` (a 304 too) is a `Response<User>`. */
class Users extends UsersApi {
  override get(id: number, ctx: ContainerRequestContext): Response<User> {
    return ctx.evaluatePreconditions({ tag: new EntityTag('v1') }) ?? Response.ok({ id, name: 'Ada' }).build();
  }
}
void Users;

// Any built Response is a Response<T> and back; two different entity types are not.
declare const plainResponse: Response;
declare const userResponse: Response<User>;
const typedFromPlain: Response<User> = plainResponse;
const plainFromTyped: Response = userResponse;
// @ts-expect-error a Response<User> is not a Response<string>
const mismatched: Response<string> = userResponse;
void [typedFromPlain, plainFromTyped, mismatched];

declare const client: ContractClient<UsersApi>;
declare const raw: ResponseContractClient<UsersApi>;

// Server-only parameters are gone, the others keep their order and optionality.
expectType<Equal<Parameters<typeof client.get>, [number]>>();
expectType<Equal<Parameters<typeof client.create>, [Omit<User, 'id'>, (string | undefined)?]>>();
expectType<Equal<Parameters<typeof client.list>, []>>();
expectType<Equal<Parameters<typeof client.events>, []>>();
// The AbortSignal stays: it is the call's signal.
expectType<Equal<Parameters<typeof client.slow>, [AbortSignal]>>();
expectType<Equal<ClientParameters<[id: number, ctx: ContainerRequestContext, key?: string]>, [number, (string | undefined)?]>>();
// `any` and `unknown` are not server-only; every context type is.
expectType<Equal<ClientParameters<[a: any, b: unknown]>, [any, unknown]>>();
expectType<
  Equal<[UriInfo, HttpHeaders, SecurityContext, ResourceInfo, Sse, SseEventSink, ContainerRequestContext] extends ServerOnly[] ? 1 : 0, 1>
>();

// Response<T> resolves as T; a plain Response as unknown; other returns as declared.
expectType<Equal<ReturnType<typeof client.get>, Promise<User>>>();
expectType<Equal<ReturnType<typeof client.create>, Promise<User>>>();
expectType<Equal<ReturnType<typeof client.plain>, Promise<unknown>>>();
expectType<Equal<ReturnType<typeof client.list>, Promise<User[]>>>();
expectType<Equal<ReturnType<typeof raw.create>, Promise<ClientResponse<User>>>>();
expectType<Equal<ReturnType<typeof raw.plain>, Promise<ClientResponse<unknown>>>>();

async function calls(): Promise<void> {
  const user: User = await client.get(1);
  const created = await raw.create({ name: 'Ada' }, 'key-1');
  const status: number = created.status;
  const location: string | undefined = created.getHeader('location');
  const entity: User = await created.readEntity();
  const text: string = await created.readEntity(String);
  await client.upload(Readable.from(['x']));
  await client.upload(
    (async function* () {
      yield Buffer.from('x');
    })(),
  );
  await client.parts([EntityPart.of('file', 'x')]);
  void [user, status, location, entity, text];

  // @ts-expect-error the request context is the server's, not an argument of the client
  await client.get(1, undefined);
  // @ts-expect-error the UriInfo is left out: the header is the second argument
  await client.create({ name: 'Ada' }, {} as UriInfo);
  // @ts-expect-error a User is not a string
  const wrong: string = await client.get(1);
  void wrong;
  // readEntity() of a ClientResponse<User> is a User.
  const read = await created.readEntity();
  expectType<Equal<typeof read, User>>();
}
void calls;

// createClient and Client.proxy give the same types.
const made = createClient(UsersApi, { baseUrl: 'http://127.0.0.1:1' });
expectType<Equal<typeof made, ContractClient<UsersApi>>>();
expectType<Equal<ReturnType<Client['proxy']>, ContractClient<unknown>>>();

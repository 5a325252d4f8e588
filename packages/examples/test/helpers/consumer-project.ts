/** What a user's tsconfig needs for the decorators (both projects). */
const TSCONFIG = JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      // The package's own .d.ts files are checked too: they must compile for users.
      skipLibCheck: false,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  },
  null,
  2,
);

/**
 * The files of the throw-away consumer project of `consumer.test.ts`: what a user outside the
 * workspace would write. Kept apart so the test reads as the steps it takes.
 */
export function CONSUMER_FILES(tarball: string): Record<string, string> {
  return {
    'package.json': JSON.stringify(
      {
        name: 'jaxrs-consumer',
        private: true,
        type: 'module',
        dependencies: {
          '@jaxrs-node/pipeline': `file:${tarball}`,
          'reflect-metadata': '^0.2.2',
          tsyringe: '^4.10.0',
        },
        devDependencies: { typescript: '7.0.2', '@types/node': '^20' },
      },
      null,
      2,
    ),

    'tsconfig.json': TSCONFIG,

    'src/tenant-filter.ts': `import {
  Priorities, Priority, Response, type ContainerRequestContext, type ContainerRequestFilter,
} from '@jaxrs-node/pipeline';

@Priority(Priorities.AUTHENTICATION)
export class TenantFilter implements ContainerRequestFilter {
  filterRequest(ctx: ContainerRequestContext): void {
    const tenant = ctx.getHeader('x-tenant');
    if (tenant === undefined) {
      ctx.abortWith(Response.status(400).entity({ error: 'X-Tenant header required' }));
      return;
    }
    ctx.setProperty('tenant', tenant);
  }
}
`,

    'src/main.ts': `import 'reflect-metadata';
import {
  Application, Context, ContainerRequestContext, DefaultValue, GET, JsonWriter, Path, PathParam, QueryParam,
} from '@jaxrs-node/pipeline';
import { TenantFilter } from './tenant-filter.js';

@Path('/greet')
class GreetResource {
  @GET('/{name}')
  greet(
    @PathParam('name') name: string,
    @QueryParam('times') @DefaultValue('1') times: number,
    @Context() ctx: ContainerRequestContext,
  ) {
    const greeting = Array.from({ length: times }, () => \`Hello, \${name}!\`).join(' ');
    return { greeting, times, timesType: typeof times, tenant: ctx.getProperty('tenant') };
  }
}

// builtinProviders: false, so the JSON writer registered here is the only writer.
const app = new Application({ builtinProviders: false, resources: [GreetResource], providers: [new TenantFilter(), new JsonWriter()] });
const { port } = await app.listen(Number(process.env.PORT ?? 3000));
console.log(\`listening on http://127.0.0.1:\${port}\`);
process.once('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
`,

    'src/unit.ts': `import { createRequestContext, runRequestFilter } from '@jaxrs-node/pipeline/testing';
import { TenantFilter } from './tenant-filter.js';

const refused = await runRequestFilter(new TenantFilter(), createRequestContext({ url: '/greet/x' }));
const ctx = createRequestContext({ url: '/greet/x', headers: { 'x-tenant': 'acme' } });
await runRequestFilter(new TenantFilter(), ctx);
console.log(JSON.stringify({ abortedWith: refused?.status, passedTenant: ctx.getProperty('tenant') }));
`,

    // Compile-time only: if the package's types were missing (any), these directives would be unused errors.
    'src/types.ts': `import { Response, type ContainerRequestFilter } from '@jaxrs-node/pipeline';
import { createRequestContext } from '@jaxrs-node/pipeline/testing';

// @ts-expect-error status is a number
export const status: string = new Response(200).status;
// @ts-expect-error filterRequest is required
export const filter: ContainerRequestFilter = {};
// @ts-expect-error no such option
createRequestContext({ nope: true });
`,
  };
}

/**
 * A CommonJS project (`"type": "commonjs"`, TypeScript emitting `require`): it loads the ES module
 * package through Node's `require(esm)` (Node 20.19+, 22.12+), which the package's `require`
 * export condition allows. It serves one route and asks itself over a real socket.
 */
export function CJS_CONSUMER_FILES(tarball: string): Record<string, string> {
  return {
    'package.json': JSON.stringify(
      {
        name: 'jaxrs-consumer-cjs',
        private: true,
        type: 'commonjs',
        dependencies: { '@jaxrs-node/pipeline': `file:${tarball}`, 'reflect-metadata': '^0.2.2', tsyringe: '^4.10.0' },
        devDependencies: { typescript: '7.0.2', '@types/node': '^20' },
      },
      null,
      2,
    ),
    'tsconfig.json': TSCONFIG,
    'src/main.ts': `import 'reflect-metadata';
import { Application, GET, Path, PathParam } from '@jaxrs-node/pipeline';

@Path('/twice')
class Twice {
  @GET('{n}') get(@PathParam('n') n: number) {
    return { twice: n * 2, type: typeof n };
  }
}

async function main(): Promise<void> {
  const app = new Application({ resources: [Twice] });
  const { port } = await app.listen(0);
  const res = await fetch(\`http://127.0.0.1:\${port}/twice/21\`);
  console.log(JSON.stringify({ status: res.status, body: await res.json(), moduleKind: typeof require }));
  await app.close(1000);
}
void main();
`,
  };
}

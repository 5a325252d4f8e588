import type { Constructor, DynamicFeature, Feature, FeatureContext } from '../../core/context/contracts.js';
// A value import: `@Context() request: ContainerRequestContext` needs the class in its metadata (`import type` emits Object).
import { ContainerRequestContext } from '../../core/context/request-context.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { NotFoundError } from '../../core/http/errors.js';
import type { Application } from '../../core/server/application.js';
import { Context } from '../../decorators/params.js';
import { GET, Path, Produces } from '../../decorators/resource.js';
import type { Response } from '../../core/http/response.js';
import { ApiHidden } from './decorators.js';
import { DocumentBuilder, type OpenApiDocument } from './document.js';
import { checkOptions, type OpenApiOptions } from './options.js';
import { StaticBody } from './static-body.js';
import { DOCS_CSP, docsPage, INIT_SCRIPT, loadSwaggerUi, type SwaggerUiAssets } from './swagger-ui.js';

const DEFAULT_PATH = '/openapi.json';
const DEFAULT_DOCS_PATH = '/docs';

/**
 * Opt-in OpenAPI 3.1 for an application, built from the same declarations that route and validate
 * requests: the build calls it once per resource method (as a `DynamicFeature`), so the document
 * lists exactly the routes the application serves; schemas come from the constraint decorators
 * the validator compiles. It serves the document at `path` and, when the application has the
 * optional `swagger-ui-dist` package installed, Swagger UI at `docsPath` (else a 404 saying so),
 * both under the application's base path. The document is assembled once (on its first request,
 * which tells the base path) and then served as the same bytes with an `ETag`; other routes do
 * not pay for it. One instance per application.
 * @example
 * new Application({
 *   resources: [UserResource],
 *   providers: [new OpenApiFeature({
 *     info: { title: 'Users', version: '1.0.0' },
 *     securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
 *     security: [{ binding: RolesAllowed, schemes: ['bearer'] }],
 *   })],
 * });
 */
export class OpenApiFeature implements Feature, DynamicFeature {
  private readonly options: OpenApiOptions;
  private builder: DocumentBuilder | undefined;
  /** Set right after `build()`: sub-resources built later (on a request) are not added. */
  private frozen = false;
  private served: { readonly basePath: string; readonly body: StaticBody } | undefined;

  constructor(options: OpenApiOptions) {
    checkOptions(options);
    this.options = options;
  }

  /** Registers the document's and the docs page's resources (Feature). */
  setup(context: FeatureContext): void {
    if (this.builder !== undefined) {
      throw new Error('OpenApiFeature: this instance already belongs to an application: create one OpenApiFeature per Application');
    }
    this.builder = new DocumentBuilder(this.options, context.configuration?.errorFormat);
    // build() is synchronous: this runs once it has returned, when every route is known.
    queueMicrotask(() => {
      this.frozen = true;
    });
    const path = this.options.path ?? DEFAULT_PATH;
    if (path !== false) context.register(documentResource(this, path));
    // Without the document (path: false) the page has nothing to show: the default docs path is not served either.
    const docsPath = this.options.docsPath ?? (path === false ? false : DEFAULT_DOCS_PATH);
    if (docsPath !== false) {
      const assets = loadSwaggerUi(this.options.resolveFrom ?? process.cwd());
      context.register(docsResource(new DocsPage(assets, this.options.info.title, path === false ? undefined : path, docsPath), docsPath));
    }
  }

  /** Documents one resource method, at start-up (DynamicFeature). */
  configure(resourceInfo: ResourceInfo, _context: FeatureContext): void {
    if (this.frozen || this.builder === undefined) return;
    try {
      this.builder.add(resourceInfo);
    } catch (e) {
      throw new Error(
        `OpenApiFeature: cannot document ${resourceInfo.resourceClass.name}.${resourceInfo.methodName}: ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  /**
   * The document, its paths under `basePath` (the application's `basePath` option, `''` for none).
   * Available once the application is built.
   * @example
   * const feature = new OpenApiFeature({ info: { title: 'Users', version: '1' } });
   * new Application({ resources: [UserResource], providers: [feature] }).build();
   * const doc = feature.document();
   */
  document(basePath = ''): OpenApiDocument {
    if (this.builder === undefined)
      throw new Error('OpenApiFeature.document(): register the feature in an Application and build() it first');
    return this.builder.document(basePath === '' ? undefined : basePath);
  }

  /** The served document, serialized once per base path (once: an application has one). */
  respond(request: ContainerRequestContext): Response {
    const basePath = request.basePath;
    let served = this.served;
    if (served?.basePath !== basePath) {
      served = { basePath, body: new StaticBody(Buffer.from(JSON.stringify(this.document(basePath))), 'application/json') };
      this.served = served;
    }
    return served.body.respond(request);
  }
}

/** The resource serving the document (a class per feature: its `@Path` is the option's). */
function documentResource(feature: OpenApiFeature, path: string): Constructor {
  @ApiHidden()
  @Path(path)
  class OpenApiDocumentResource {
    @GET() @Produces('application/json') document(@Context() request: ContainerRequestContext): Response {
      return feature.respond(request);
    }
  }
  return OpenApiDocumentResource;
}

/** Swagger UI's page and files, or the 404 explaining how to get them. */
class DocsPage {
  private page: { readonly basePath: string; readonly body: StaticBody } | undefined;
  private readonly files: { readonly css: StaticBody; readonly bundle: StaticBody; readonly init: StaticBody } | undefined;

  constructor(
    assets: SwaggerUiAssets | undefined,
    private readonly title: string,
    private readonly documentPath: string | undefined,
    private readonly docsPath: string,
  ) {
    const headers = { 'x-content-type-options': 'nosniff' };
    this.files =
      assets === undefined
        ? undefined
        : {
            css: new StaticBody(assets.css, 'text/css; charset=utf-8', headers),
            bundle: new StaticBody(assets.bundle, 'text/javascript; charset=utf-8', headers),
            init: new StaticBody(INIT_SCRIPT, 'text/javascript; charset=utf-8', headers),
          };
  }

  private available(): NonNullable<DocsPage['files']> {
    if (this.files === undefined || this.documentPath === undefined) {
      const why =
        this.files === undefined
          ? 'the docs page needs the optional swagger-ui-dist package, which the application has not installed: add it (npm install swagger-ui-dist)'
          : 'the docs page needs the OpenAPI document, which is not served (option path: false)';
      throw new NotFoundError(`${why}; the OpenAPI document itself is served at ${this.documentPath ?? '(not served)'}`, {
        code: 'OPENAPI_DOCS_UNAVAILABLE',
      });
    }
    return this.files;
  }

  index(request: ContainerRequestContext): Response {
    this.available();
    const basePath = request.basePath;
    let page = this.page;
    if (page?.basePath !== basePath) {
      const html = docsPage(this.title, basePath + this.docsPath, basePath + this.documentPath!);
      page = { basePath, body: new StaticBody(html, 'text/html; charset=utf-8', PAGE_HEADERS) };
      this.page = page;
    }
    return page.body.respond(request);
  }

  file(name: 'css' | 'bundle' | 'init', request: ContainerRequestContext): Response {
    return this.available()[name].respond(request);
  }
}

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The resource serving Swagger UI: literal paths only, so the router's literal map takes them. */
function docsResource(page: DocsPage, path: string): Constructor {
  @ApiHidden()
  @Path(path)
  class SwaggerUiResource {
    @GET() @Produces('text/html') index(@Context() request: ContainerRequestContext): Response {
      return page.index(request);
    }
    @GET('swagger-ui.css') @Produces('text/css') css(@Context() request: ContainerRequestContext): Response {
      return page.file('css', request);
    }
    @GET('swagger-ui-bundle.js') @Produces('text/javascript') bundle(@Context() request: ContainerRequestContext): Response {
      return page.file('bundle', request);
    }
    @GET('init.js') @Produces('text/javascript') init(@Context() request: ContainerRequestContext): Response {
      return page.file('init', request);
    }
  }
  return SwaggerUiResource;
}

/**
 * The OpenAPI document of an application that is not built yet, without serving anything: for a
 * script that writes the document to a file, or a test. The application is built (a later
 * `listen()` serves it as usual).
 * @example
 * import { writeFileSync } from 'node:fs';
 * writeFileSync('openapi.json', JSON.stringify(buildOpenApi(createApp(), { info: { title: 'Users', version: '1.0.0' } }), null, 2));
 */
export function buildOpenApi(app: Application, options: Omit<OpenApiOptions, 'path' | 'docsPath' | 'resolveFrom'>): OpenApiDocument {
  const feature = new OpenApiFeature({ ...options, path: false, docsPath: false });
  try {
    app.register(feature);
  } catch (e) {
    throw new Error(
      'buildOpenApi(app): the application is already built, so nothing more can be registered: pass an application before build(), listen() or inject(), ' +
        'or register an OpenApiFeature and read its document()',
      { cause: e },
    );
  }
  app.build();
  // Application keeps its validated base path in a private field; the document needs it and no request tells it here.
  return feature.document(app.basePath ?? '');
}

import 'reflect-metadata';
import { Application, GET, Path, Produces, SecurityHeaders, SecurityHeadersFeature } from '@jaxrs-node/pipeline';

@Path('/')
class Site {
  /** An API answer: every default header. */
  @GET('api/users') users(): Array<{ id: number; name: string }> {
    return [{ id: 1, name: 'Ann' }];
  }
  /** A page of this site that its other pages may frame: its own frame policy, no Referrer-Policy. */
  @GET('embed')
  @Produces('text/html')
  @SecurityHeaders({ frameOptions: 'SAMEORIGIN', contentSecurityPolicy: "frame-ancestors 'self'", referrerPolicy: false })
  embed(): string {
    return '<p>a widget</p>';
  }
  /** Fails: the 500 carries the headers too. */
  @GET('broken') broken(): string {
    throw new Error('broken on purpose');
  }
}

/** The site with the API security headers on every response; HSTS only when served over TLS. */
export function createApp(): Application {
  return new Application({
    resources: [Site],
    providers: [new SecurityHeadersFeature({ crossOriginResourcePolicy: 'same-site' })],
    logger: () => undefined,
  });
}

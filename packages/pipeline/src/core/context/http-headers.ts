import type { ContainerRequestContext } from './request-context.js';
import { SERVER_ONLY, type ServerOnly } from './server-only.js';

/** The JAX-RS "headers" view for `@Context()`. */
export class HttpHeaders implements ServerOnly {
  /** Injected by the server: a typed client leaves such a parameter out ({@link ServerOnly}). */
  declare readonly [SERVER_ONLY]: true;
  constructor(private readonly ctx: ContainerRequestContext) {}
  get(name: string): string | undefined {
    return this.ctx.getHeader(name);
  }
  get all(): ContainerRequestContext['headers'] {
    return this.ctx.headers;
  }
  get mediaType(): ContainerRequestContext['mediaType'] {
    return this.ctx.mediaType;
  }
  get acceptableMediaTypes(): ContainerRequestContext['acceptableMediaTypes'] {
    return this.ctx.acceptableMediaTypes;
  }
  get cookies(): ContainerRequestContext['cookies'] {
    return this.ctx.cookies;
  }
}

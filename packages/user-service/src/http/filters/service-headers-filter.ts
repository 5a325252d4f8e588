import { inject, injectable } from 'tsyringe';
import {
  Priority,
  UriInfo,
  type ContainerRequestContext,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import type { AppConfig } from '../../domain/config/app-config.js';
import { TOKENS } from '../di-tokens.js';

/**
 * With `PUBLIC_BASE_URL` set, a `Location` built from the request's own base URI (scheme, the
 * client's `Host`) is rewritten onto the configured public base, so a client behind a proxy, or
 * one sending a forged `Host`, is never sent to an address the operator did not choose.
 * (`X-Content-Type-Options: nosniff` and the other security headers come from the library's
 * `SecurityHeadersFeature`, registered in server.ts.)
 */
@injectable()
@Priority(0)
export class ServiceHeadersFilter implements ContainerResponseFilter {
  constructor(@inject(TOKENS.config) private readonly config: AppConfig) {}

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const publicBase = this.config.publicBaseUrl;
    if (publicBase === undefined) return;
    const location = res.headers.location;
    if (typeof location !== 'string') return;
    let base: string;
    try {
      base = new UriInfo(req).baseUri;
    } catch {
      return; // an invalid Host: the request was refused with 400 and carries no Location
    }
    if (location.startsWith(base)) res.headers.location = publicBase + location.slice(base.length);
  }
}

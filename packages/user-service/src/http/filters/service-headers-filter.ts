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
 * Headers every answer of the service carries:
 * - `X-Content-Type-Options: nosniff` on every response, errors included, so that no browser
 *   sniffs a JSON error or a download into something it would render or run (WHATWG Fetch
 *   "X-Content-Type-Options").
 * - With `PUBLIC_BASE_URL` set, a `Location` built from the request's own base URI (scheme, the
 *   client's `Host`) is rewritten onto the configured public base, so a client behind a proxy, or
 *   one sending a forged `Host`, is never sent to an address the operator did not choose.
 */
@injectable()
@Priority(0)
export class ServiceHeadersFilter implements ContainerResponseFilter {
  constructor(@inject(TOKENS.config) private readonly config: AppConfig) {}

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    res.headers['x-content-type-options'] = 'nosniff';
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

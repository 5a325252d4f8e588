import { inject, injectable } from 'tsyringe';
import {
  PreMatching,
  Priority,
  ServiceUnavailableError,
  type ContainerRequestContext,
  type ContainerRequestFilter,
  type ContainerResponseContext,
  type ContainerResponseFilter,
} from '@jaxrs-node/pipeline';
import type { RecordStore } from '../../storage/record-store.js';
import { serviceErrorEntity } from '../error-body.js';
import { TOKENS } from '../di-tokens.js';

const ROLLBACKS_AT_START = 'durability.rollbacks';

/**
 * Commit-wait for reads: a GET or HEAD answer leaves only once everything it may have read is
 * durable. The store applies a batch to memory when it is committed and fsyncs it a moment later
 * (group commit); a read in between could pass on a write that a full disk then makes the store
 * take back. So before a read's response is written this filter awaits the store's `settled()`
 * (nothing to wait for, and no promise, when no write is pending) and compares the store's
 * rollback count with the one at the start of the request: if a batch was taken back meanwhile,
 * the answer may hold it, and the client gets 503 with `Retry-After: 1` instead.
 *
 * Writes need no wait: a commit resolves only once its own batch and every batch before it are
 * durable, and the pipeline writes their responses after that.
 *
 * Read barrier (stores shared by several instances): before anything else, every request awaits
 * the store's `sync()`, so reads (and the checks of a write) see every write acknowledged before
 * the request began, whichever instance acknowledged it. Local stores have nothing to wait for.
 */
@injectable()
@PreMatching()
@Priority(0)
export class DurabilityFilter implements ContainerRequestFilter, ContainerResponseFilter {
  constructor(@inject(TOKENS.store) private readonly store: RecordStore) {}

  filterRequest(ctx: ContainerRequestContext): void | Promise<void> {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') ctx.setProperty(ROLLBACKS_AT_START, this.store.rollbacks);
    // A shared store (etcd): catch up with every write acknowledged, by any instance, before this
    // request began, so that a client reads its own writes whichever instance answers.
    return this.store.sync();
  }

  filterResponse(req: ContainerRequestContext, res: ContainerResponseContext): void | Promise<void> {
    const start = req.getProperty(ROLLBACKS_AT_START);
    if (typeof start !== 'number') return;
    const settled = this.store.settled();
    if (settled === undefined) {
      if (this.store.rollbacks !== start) this.refuse(req, res);
      return;
    }
    return settled.then((ok) => {
      if (!ok || this.store.rollbacks !== start) this.refuse(req, res);
    });
  }

  /** Replaces the answer in place (no second mapping pass): the data it held may be gone. */
  private refuse(req: ContainerRequestContext, res: ContainerResponseContext): void {
    const error = new ServiceUnavailableError('A concurrent write failed; retry the request', { retryAfterSeconds: 1 });
    const { body, headers } = serviceErrorEntity(error, req);
    res.status = 503;
    res.entity = body;
    res.entityType = undefined;
    for (const name of ['etag', 'last-modified', 'location', 'content-length', 'content-encoding']) delete res.headers[name];
    res.headers['content-type'] = headers['content-type']!;
    // The body's format follows Accept (a field listed twice is harmless, RFC 9110 §12.5.5).
    const vary = res.headers.vary;
    res.headers.vary = vary === undefined ? 'Accept' : `${String(vary)}, Accept`;
    res.headers['retry-after'] = '1';
  }
}

import type { ContainerRequestContext, ContainerRequestFilter } from '@jaxrs-node/pipeline';
import { maxUploadBodyBytes, uploadTooLarge, type UploadLimits } from '../../domain/files/uploads.js';
import { UploadLimited } from '../bindings.js';

/**
 * A declared `Content-Length` above what a valid upload can have is 413 before any byte is read,
 * as the multipart reader would answer it (same bound, {@link maxUploadBodyBytes}), but with the
 * service's message naming `UPLOAD_MAX_BYTES`, the limit the operator configured, instead of the
 * reader's internal bound on the whole body (which adds room for fields and part headers). Runs
 * after matching, before the entity is read (Jakarta REST 3.1 §6.5.2: post-matching filters run
 * before the method's entity parameter is read); the unread body is then discarded while the
 * connection closes (the pipeline's lingering close).
 */
@UploadLimited()
export class UploadLimitFilter implements ContainerRequestFilter {
  private readonly maxBodyBytes: number;

  constructor(private readonly limits: Readonly<UploadLimits>) {
    this.maxBodyBytes = maxUploadBodyBytes(limits);
  }

  filterRequest(ctx: ContainerRequestContext): void {
    const declared = ctx.headers['content-length'];
    // A malformed Content-Length is Node's parser's 400 before this runs; absent: chunked, counted by the reader.
    if (declared !== undefined && Number(declared) > this.maxBodyBytes) throw uploadTooLarge(this.limits);
  }
}

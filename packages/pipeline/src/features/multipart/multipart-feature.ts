import type { Feature, FeatureContext } from '../../core/context/contracts.js';
import { requireReader, requireWriter } from '../../core/internal/extensions.js';
import { resolveLimits, type MultipartLimits } from './limits.js';
import { MultipartBody } from './multipart-body.js';
import { MultipartReader, type MultipartOptions } from './reader.js';
import { MultipartWriter } from './writer.js';

// A MultipartBody entity, EntityPart form parts and @FormParams under @Consumes('multipart/form-data')
// are read only by a multipart reader: build() refuses such a method when none is registered
// (the request path could only answer 415), however the reader came (this feature as an instance
// or a class, through another Feature, or a MultipartReader on its own).
requireReader({
  mediaType: 'multipart/form-data',
  entityTypes: [MultipartBody],
  forms: true,
  fix: "register new MultipartFeature() (import { MultipartFeature } from '@jaxrs-node/pipeline/multipart') in providers",
});
// Likewise a method that @Produces multipart: only MultipartWriter writes (a list of EntityParts as) it.
requireWriter({
  mediaTypes: ['multipart/form-data', 'multipart/mixed'],
  probe: Array,
  fix: "register new MultipartFeature() (import { MultipartFeature } from '@jaxrs-node/pipeline/multipart') in providers",
});

/**
 * Multipart entities (Jakarta REST 3.1 §4.2 `EntityPart`): registers a {@link MultipartReader}
 * (`multipart/form-data` requests: a `MultipartBody` entity parameter, or `@FormParam`s) and a
 * {@link MultipartWriter} (`EntityPart[]` as `multipart/form-data` or `multipart/mixed`). The
 * limits are validated here, at construction.
 *
 * @example
 * import { MultipartFeature } from '@jaxrs-node/pipeline/multipart';
 * new Application({ resources: [Uploads], providers: [new MultipartFeature({ limits: { partSize: 512 * 1024 * 1024 } })] });
 */
export class MultipartFeature implements Feature {
  /** The limits in force, defaults filled in. */
  readonly limits: Readonly<MultipartLimits>;
  private readonly reader: MultipartReader;
  private readonly writer = new MultipartWriter();

  constructor(options: MultipartOptions = {}) {
    this.limits = resolveLimits(options.limits, 'MultipartFeature');
    this.reader = new MultipartReader({ limits: this.limits });
  }

  setup(context: FeatureContext): void {
    context.register(this.reader).register(this.writer);
  }
}

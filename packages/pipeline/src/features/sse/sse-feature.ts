import type { DynamicFeature, Feature, FeatureContext } from '../../core/context/contracts.js';
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { resolveSseOptions, setSseOptions, type ResolvedSseOptions, type SseOptions } from './options.js';

/**
 * Configures the application's server-sent event streams (queue bound, heartbeat, idle close,
 * the event sent when the application closes). Streams work without it, with the defaults
 * ({@link DEFAULT_SSE_OPTIONS}). Options are checked here, at construction: a bad value throws a
 * `TypeError` naming it.
 * @example
 * new Application({
 *   resources: [Prices],
 *   providers: [new SseFeature({ queueLimit: 256 * 1024, heartbeatInterval: 10_000,
 *     closeEvent: OutboundSseEvent.builder().name('bye').data('restarting').reconnectDelay(5000).build() })],
 * });
 */
export class SseFeature implements Feature {
  private readonly options: ResolvedSseOptions;

  constructor(options: SseOptions = {}) {
    this.options = resolveSseOptions(options);
  }

  setup(context: FeatureContext): void {
    context.register(new SseMethodOptions(this.options));
  }
}

/** Gives each resource method the feature's options at start-up (its sinks are made with them). */
class SseMethodOptions implements DynamicFeature {
  constructor(private readonly options: ResolvedSseOptions) {}

  configure(resourceInfo: ResourceInfo): void {
    setSseOptions(resourceInfo, this.options);
  }
}

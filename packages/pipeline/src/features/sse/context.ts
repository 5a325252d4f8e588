/**
 * `@Context() sink: SseEventSink` and `@Context() sse: Sse`, registered with the pipeline when
 * this module loads (the main entry imports it).
 */
import type { ResourceInfo } from '../../core/context/resource-info.js';
import { parseMediaType } from '../../core/http/media-type.js';
import { effectiveResource } from '../../core/model/metadata.js';
import { ModelProblemError } from '../../core/model/model-problems.js';
import { registerContextType } from '../../core/internal/extensions.js';
import { sseOptionsOf } from './options.js';
import { SseEventSink } from './sink.js';
import { Sse } from './sse.js';

const SSE = new Sse();

registerContextType(Sse, () => () => SSE);

registerContextType(
  SseEventSink,
  (info, where) => {
    if (!producesEventStream(info)) {
      throw new ModelProblemError(
        'PIPELINE_SINK_WITHOUT_EVENT_STREAM',
        `${where} takes an SseEventSink but does not produce text/event-stream: add @Produces('text/event-stream') to the method (Jakarta REST 3.1 §9.3)`,
      );
    }
    const options = sseOptionsOf(info);
    return (ex) => new SseEventSink(ex, options);
  },
  // Its stream is the response (sink.ts answers a void method with it): build() warns about a declared return value.
  { answersRequest: true },
);

/** Does the method (or its class) declare `@Produces('text/event-stream')`? */
function producesEventStream(info: ResourceInfo): boolean {
  const resource = effectiveResource(info.resourceClass);
  const produces = resource?.methods.get(info.methodName)?.meta.produces ?? resource?.produces ?? [];
  return produces.some((p) => parseMediaType(p)?.essence === 'text/event-stream');
}

import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line as an independent parser read it. */
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/**
 * Reads a Prometheus text exposition (format 0.0.4) with parse-prometheus-text-format (a port of
 * prom2json and of the Python client's parser): the families with their type and help, and every
 * sample line with its labels. That parser folds a histogram's lines into one object and loses
 * their labels, so the samples come from a second pass where histograms are typed `untyped`: every
 * `_bucket` (with its `le`), `_sum` and `_count` line is then a plain sample.
 */
export function readExposition(text: string): {
  families: Array<{ name: string; type: string; help: string }>;
  samples: Sample[];
} {
  const families = parsePrometheusTextFormat(text).map((f) => ({ name: f.name, type: f.type, help: f.help }));
  const flat = parsePrometheusTextFormat(text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped'));
  const samples = flat.flatMap((f) => f.metrics.map((m) => ({ name: f.name, labels: { ...m.labels }, value: Number(m.value) })));
  return { families, samples };
}

/** The value of the one sample named `name` whose labels include `labels`; throws when there is not exactly one. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples ${name} ${JSON.stringify(labels)}`);
  return found[0]!.value;
}
